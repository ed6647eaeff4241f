/// The state of the virtual gamepad (``Xbox360Layout``): the real pad's buttons, triggers, d-pad
/// and sticks passed through, and the gyroscope's part added to one stick
/// (``GyroStickMapping/deflection(gyro:real:)``). Each input returns the events that change the
/// virtual pad, without the closing `SYN_REPORT`, which is the caller's.
///
/// The real pad's codes follow the kernel's gamepad layout (Documentation/input/gamepad.rst: the
/// face buttons by position, BTN_SOUTH for the bottom one), as do xpad's, so keys keep their codes.
/// A pad with digital triggers only (hid-nintendo's ZL and ZR are BTN_TL2 and BTN_TR2) pulls the
/// virtual trigger fully; one with analog triggers (hid-playstation's ABS_Z and ABS_RZ) sends
/// both, and once such an axis has been seen (its starting value counts) only the axis does: a
/// trigger's axis moves before its key goes down. D-pad keys (BTN_DPAD_*, a Joy-Con's) become the hat.
/// Keys the virtual pad has not (a capture button, a touchpad click) are dropped, as are those
/// mouse3d acts on (the clutch, recenter: `withheld`).
public struct VirtualGamepad: Sendable {
    /// One event for the virtual device.
    public struct Event: Sendable, Equatable, CustomStringConvertible {
        public var type: UInt16
        public var code: UInt16
        public var value: Int32

        public init(type: UInt16, code: UInt16, value: Int32) {
            self.type = type
            self.code = code
            self.value = value
        }

        public var description: String { "\(type == Xbox360Layout.Code.evKey ? "key" : "abs") \(code)=\(value)" }
    }

    typealias C = Xbox360Layout.Code
    /// The gyroscope's part.
    public var gyro: GyroStick
    /// Whether the real pad has shown an analog trigger (ABS_Z or ABS_RZ).
    public private(set) var analogTriggers = false
    private var keys: [UInt16: Int32] = [:]
    private var axes: [UInt16: Int32] = [:]
    /// The real sticks' deflections (-1...1, right and down): left, right.
    private var real: [SIMD2<Double>] = [.zero, .zero]
    private var dpad: Set<UInt16> = []
    /// The triggers as the real pad pulls them, and whether a click pulls them fully.
    private var realTriggers: [UInt16: Int32] = [:]
    private var clickedTriggers: Set<UInt16> = []
    /// When the last attitude came, and the typical time between attitudes (a moving average).
    private var lastAttitudeAt: UInt64?
    private var typicalIntervalNanoseconds = 0.0
    /// The real pad's keys that mouse3d acts on, not passed on.
    public let withheld: Set<UInt16>

    /// A virtual pad fed by a real one, without the keys in `withheld`.
    public init(mapping: GyroStickMapping, withheld: Set<UInt16> = []) {
        gyro = GyroStick(mapping: mapping)
        self.withheld = withheld
    }

    /// The value an axis or key of the virtual pad has now (0 before any event).
    public func value(ofAxis code: UInt16) -> Int32 { axes[code] ?? 0 }
    public func value(ofKey code: UInt16) -> Int32 { keys[code] ?? 0 }

    /// A key of the real pad went down or up.
    public mutating func key(_ code: UInt16, pressed: Bool) -> [Event] {
        switch code {
        case _ where withheld.contains(code): return []
        case C.btnTL2 where !analogTriggers: return trigger(C.absZ, real: pressed ? 255 : 0)
        case C.btnTR2 where !analogTriggers: return trigger(C.absRZ, real: pressed ? 255 : 0)
        case C.btnDpadUp, C.btnDpadDown, C.btnDpadLeft, C.btnDpadRight:
            if pressed { dpad.insert(code) } else { dpad.remove(code) }
            func hat(_ minus: UInt16, _ plus: UInt16) -> Int32 {
                (dpad.contains(plus) ? 1 : 0) - (dpad.contains(minus) ? 1 : 0)
            }
            return set(axis: C.absHat0X, hat(C.btnDpadLeft, C.btnDpadRight))
                + set(axis: C.absHat0Y, hat(C.btnDpadUp, C.btnDpadDown))
        case _ where Xbox360Layout.keys.contains(code):
            return set(key: code, pressed ? 1 : 0)
        default:
            return []
        }
    }

    /// An axis of the real pad moved: `normalized` is -1...1 over its range (a trigger's too).
    public mutating func axis(_ code: UInt16, normalized n: Double) -> [Event] {
        switch code {
        case C.absX: real[0].x = n
        case C.absY: real[0].y = n
        case C.absRX: real[1].x = n
        case C.absRY: real[1].y = n
        case C.absZ where withheld.contains(C.btnTL2), C.absRZ where withheld.contains(C.btnTR2):
            analogTriggers = true  // a trigger mouse3d acts on (the clutch on L2) stays released
            return []
        case C.absZ, C.absRZ:
            analogTriggers = true
            return trigger(code, real: Xbox360Layout.triggerValue((n + 1) / 2))
        case C.absHat0X, C.absHat0Y: return set(axis: code, n < -0.5 ? -1 : n > 0.5 ? 1 : 0)
        default: return []
        }
        return sticks()
    }

    /// One attitude of the fused motion (radians, as ``Attitude``'s Euler angles): the gyroscope's
    /// part moves its stick while `enabled` (the clutch). `motionTimeNanoseconds` is the time of
    /// the motion on its own clock (the rate is measured on it; nil for an update without new
    /// motion), `arrivedNanoseconds` when it reached this process (staleness is measured on it);
    /// while `recentring` (the recenter button held) the attitude's zero moves: no turn.
    public mutating func attitude(
        rollRadians: Double, pitchRadians: Double, yawRadians: Double, motionTimeNanoseconds: UInt64?,
        arrivedNanoseconds: UInt64, enabled: Bool, recentring: Bool = false
    ) -> [Event] {
        if recentring {
            gyro.recentring()
            return sticks()
        }
        if motionTimeNanoseconds != nil {
            if let last = lastAttitudeAt, arrivedNanoseconds > last {
                let interval = Double(arrivedNanoseconds - last)
                typicalIntervalNanoseconds =
                    typicalIntervalNanoseconds == 0 ? interval : typicalIntervalNanoseconds * 0.95 + interval * 0.05
            }
            lastAttitudeAt = arrivedNanoseconds
        }
        _ = gyro.update(
            rollRadians: rollRadians, pitchRadians: pitchRadians, yawRadians: yawRadians,
            motionTimeNanoseconds: motionTimeNanoseconds, enabled: enabled)
        return sticks()
    }

    /// When the gyroscope's part goes stale if no attitude comes: 50 ms after the last, or four of
    /// the stream's usual intervals if longer (a sender paced at 20 Hz). A source that went away,
    /// or a stream that stopped, must not leave the stick turning.
    public var staleAt: UInt64? {
        guard let last = lastAttitudeAt, gyro.velocity != .zero else { return nil }
        return last + UInt64(max(50_000_000, 4 * typicalIntervalNanoseconds))
    }

    /// At `now`, past ``staleAt``: the gyroscope's part is dropped (the real stick stays) and
    /// starts anew with the next attitude.
    public mutating func expire(now: UInt64) -> [Event] {
        guard let at = staleAt, now >= at else { return [] }
        gyro.rest()
        lastAttitudeAt = nil
        typicalIntervalNanoseconds = 0
        return sticks()
    }

    /// The stream's clicks (a phone's touch areas, a remote controller's click buttons): the
    /// primary pulls the right trigger fully, the secondary the left (fire and aim in most games),
    /// over whatever the real pad pulls.
    public mutating func clicks(primary: Bool, secondary: Bool) -> [Event] {
        for (code, down) in [(C.absRZ, primary), (C.absZ, secondary)] {
            if down { clickedTriggers.insert(code) } else { clickedTriggers.remove(code) }
        }
        return trigger(C.absRZ, real: realTriggers[C.absRZ] ?? 0) + trigger(C.absZ, real: realTriggers[C.absZ] ?? 0)
    }

    /// Every key held and axis off centre now, as events (for a device created after the real pad
    /// was read: a stick already held, a trigger already pulled).
    public var state: [Event] {
        keys.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map {
            Event(type: C.evKey, code: $0.key, value: $0.value)
        }
            + axes.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map {
                Event(type: C.evAbs, code: $0.key, value: $0.value)
            }
    }

    /// Everything released and centred (the source gone, the process stopping); the gyroscope
    /// starts anew with the next attitude.
    public mutating func rest() -> [Event] {
        gyro.rest()
        lastAttitudeAt = nil
        typicalIntervalNanoseconds = 0
        real = [.zero, .zero]
        dpad = []
        realTriggers = [:]
        clickedTriggers = []
        var events: [Event] = []
        for code in keys.keys.sorted() { events += set(key: code, 0) }
        for code in axes.keys.sorted() { events += set(axis: code, 0) }
        return events
    }

    /// The sticks' values from the real sticks and the gyroscope's part.
    private mutating func sticks() -> [Event] {
        let gyroStick = gyro.mapping.stick == .left ? 0 : 1
        var events: [Event] = []
        for (i, (x, y)) in [(C.absX, C.absY), (C.absRX, C.absRY)].enumerated() {
            let d = i == gyroStick ? gyro.mapping.deflection(gyro: gyro.velocity, real: real[i]) : real[i]
            events += set(axis: x, Xbox360Layout.stickValue(d.x))
            events += set(axis: y, Xbox360Layout.stickValue(d.y))
        }
        return events
    }

    private mutating func trigger(_ code: UInt16, real value: Int32) -> [Event] {
        realTriggers[code] = value
        return set(axis: code, clickedTriggers.contains(code) ? 255 : value)
    }

    private mutating func set(key code: UInt16, _ value: Int32) -> [Event] {
        guard (keys[code] ?? 0) != value else { return [] }
        keys[code] = value
        return [Event(type: C.evKey, code: code, value: value)]
    }

    private mutating func set(axis code: UInt16, _ value: Int32) -> [Event] {
        guard (axes[code] ?? 0) != value else { return [] }
        axes[code] = value
        return [Event(type: C.evAbs, code: code, value: value)]
    }
}
