import CLinux
import Mouse3DCore

/// The uinput output: one virtual device per stream, created on the stream's first update, fed
/// every update, and — on stream loss, SIGINT/SIGTERM or any exit path — returned to rest (axes
/// centred, buttons released) before it is destroyed. (If the process dies outright, the kernel
/// destroys the device and releases its keys itself.) Owned by the event loop's thread.
public final class UinputOutput: AttitudeSink, SourceObserver {
    private struct Output {
        let device: UinputDevice
        var pointer: PointerMotion
        var held: Set<Int32> = []
        var dither = HeldValueDither(axes: 3)
        /// The virtual gamepad's state (gamepad mode).
        var pad: VirtualGamepad?
        /// Whether the stream's updates carry the motion's own time (a sample's, a sender's).
        var hasMotionClock = false
    }

    /// The kind of device.
    public let mode: UinputMode
    /// How attitude becomes pointer motion.
    public private(set) var mapping: PointerMapping
    /// How the gyroscope drives the gamepad's stick, and the real pad's keys it does not pass on
    /// (those mouse3d acts on: the clutch, recenter).
    public private(set) var gyroStick: GyroStickMapping
    private let withheld: Set<UInt16>
    /// The real pad as read so far, which a gamepad created later starts from (the pad's axes
    /// are read once when it opens, before the first attitude makes a device).
    private var padTemplate: VirtualGamepad
    private let diagnostics: Diagnostics
    private var outputs: [StreamLabel: Output] = [:]
    /// Streams whose device could not be created: their frames are skipped until they end (the
    /// others are served meanwhile); tried again when such a stream starts anew.
    private var failed: Set<StreamLabel> = []
    /// Devices of ended streams, at rest, in the order they are due to be destroyed.
    private var retiring: [(device: UinputDevice, until: UInt64)] = []

    /// Uses `mapping` and `gyroStick` from now on, for existing devices too (a configuration reload).
    public func update(mapping: PointerMapping, gyroStick: GyroStickMapping? = nil) {
        self.mapping = mapping
        if let gyroStick { self.gyroStick = gyroStick }
        padTemplate.gyro.mapping = self.gyroStick
        for key in outputs.keys {
            outputs[key]?.pointer.mapping = mapping
            outputs[key]?.pad?.gyro.mapping = self.gyroStick
        }
    }

    /// Devices of `mode`, the pointer moved by `mapping`, a gamepad's stick by `gyroStick`, the
    /// real pad's `withheld` keys not passed on.
    public init(
        mode: UinputMode, mapping: PointerMapping, gyroStick: GyroStickMapping = GyroStickMapping(),
        withheld: Set<Int32> = [], diagnostics: Diagnostics
    ) {
        self.mode = mode
        self.mapping = mapping
        self.gyroStick = gyroStick
        self.withheld = Set(withheld.compactMap { UInt16(exactly: $0) })
        padTemplate = VirtualGamepad(mapping: gyroStick, withheld: self.withheld)
        self.diagnostics = diagnostics
    }

    deinit { finish() }

    /// The button codes of the click bits, in this mode.
    private var clickCodes: [(ButtonState, Int32)] {
        switch mode {
        case .pointer: [(.primary, Int32(BTN_LEFT)), (.secondary, Int32(BTN_RIGHT)), (.middle, Int32(BTN_MIDDLE))]
        case .joystick: [(.primary, Int32(BTN_TRIGGER)), (.secondary, Int32(BTN_THUMB)), (.middle, Int32(BTN_THUMB2))]
        case .spacemouse: [(.primary, Int32(BTN_0)), (.secondary, Int32(BTN_1))]
        case .gamepad: []  // the clicks pull the triggers (``VirtualGamepad/clicks(primary:secondary:)``)
        }
    }

    /// Applies one update of its stream, creating the stream's device first if needed.
    public func write(_ f: AttitudeUpdate) throws {
        if outputs[f.stream] == nil {
            guard !failed.contains(f.stream) else { return }
            do {
                outputs[f.stream] = try create(for: f.stream)
            } catch {
                // One sender's device failing must not take the others down: said once, skipped.
                failed.insert(f.stream)
                diagnostics.say(
                    "\(f.stream): no virtual device, its frames are skipped until it starts again: \(error)")
                return
            }
        }
        guard var output = outputs[f.stream] else { return }
        let enabled = f.buttons.contains(.clutch)
        switch mode {
        case .pointer:
            let (dx, dy) = output.pointer.update(
                rollRadians: Double(f.frame.roll), pitchRadians: Double(f.frame.pitch), yawRadians: Double(f.frame.yaw),
                timeNanoseconds: f.receivedNanoseconds, enabled: enabled)
            if dx != 0 { try output.device.write(type: Int32(EV_REL), code: Int32(REL_X), value: dx) }
            if dy != 0 { try output.device.write(type: Int32(EV_REL), code: Int32(REL_Y), value: dy) }
        case .spacemouse:
            // Absolute deflections, dithered by one count while held so that every frame is an
            // event (the kernel drops repeats) and a return to 0 is delivered.
            let r =
                enabled
                ? SpaceMouseDeflection().rotation(
                    rollRadians: Double(f.frame.roll), pitchRadians: Double(f.frame.pitch),
                    yawRadians: Double(f.frame.yaw)) : .zero
            for (i, (code, value)) in zip([ABS_RX, ABS_RY, ABS_RZ], [r.x, r.y, r.z]).enumerated() {
                if let v = output.dither.next(axis: i, value: value) {
                    try output.device.write(type: Int32(EV_ABS), code: Int32(code), value: v)
                }
            }
        case .joystick:
            let pose = enabled ? [f.frame.roll, f.frame.pitch, f.frame.yaw] : [0, 0, 0]
            for (code, angle) in zip([ABS_RX, ABS_RY, ABS_RZ], pose) {
                try output.device.write(
                    type: Int32(EV_ABS), code: Int32(code), value: JoystickPose.value(radians: Double(angle)))
            }
        case .gamepad:
            // The rate is measured on the motion's own clock: the sample's here, the sender's from
            // afar (samples fused together arrive together). In a stream that has such a clock, an
            // update without one carries no new motion (a button's); a stream without any (raw
            // frames) is measured on arrival.
            let clock = f.motionNanoseconds ?? f.sentNanoseconds
            if clock != nil { output.hasMotionClock = true }
            let motionTime = clock ?? (output.hasMotionClock ? nil : f.receivedNanoseconds)
            var events =
                output.pad?.attitude(
                    rollRadians: Double(f.frame.roll), pitchRadians: Double(f.frame.pitch),
                    yawRadians: Double(f.frame.yaw), motionTimeNanoseconds: motionTime,
                    arrivedNanoseconds: f.receivedNanoseconds, enabled: enabled,
                    recentring: f.buttons.contains(.recenter)) ?? []
            events +=
                output.pad?.clicks(primary: f.buttons.contains(.primary), secondary: f.buttons.contains(.secondary))
                ?? []
            try write(events, to: output.device)
        }
        for (bit, code) in clickCodes {
            let down = f.buttons.contains(bit)
            if down != output.held.contains(code) {
                try output.device.write(type: Int32(EV_KEY), code: code, value: down ? 1 : 0)
                if down { output.held.insert(code) } else { output.held.remove(code) }
            }
        }
        try output.device.synchronize()
        outputs[f.stream] = output
    }

    /// Samples are not the device's business: it moves with the attitudes fused from them.
    public func sampleFused(_ sample: MotionSample, gyroBias: SIMD3<Double>, nowNanoseconds: UInt64) {}

    /// A key of the real pad went down or up: the gamepad passes it on.
    public func gamepadButton(code: Int32, pressed: Bool) {
        guard mode == .gamepad, let code = UInt16(exactly: code) else { return }
        pad { $0.key(code, pressed: pressed) }
    }

    /// An axis of the real pad moved: the gamepad passes it on (a stick with the gyroscope's part).
    public func gamepadAxis(code: Int32, value: Float) {
        guard mode == .gamepad, let code = UInt16(exactly: code) else { return }
        pad { $0.axis(code, normalized: Double(value)) }
    }

    /// Applies `change` to every gamepad (one in `run`: the real pad is local) and writes what it
    /// changed, in one frame. A device that cannot be written is said, and left to its stream's end.
    private func pad(_ change: (inout VirtualGamepad) -> [VirtualGamepad.Event]) {
        _ = change(&padTemplate)
        for key in outputs.keys { pad(of: key, change) }
    }

    /// Applies `change` to the gamepad of stream `key` and writes what it changed, in one frame.
    private func pad(of key: StreamLabel, _ change: (inout VirtualGamepad) -> [VirtualGamepad.Event]) {
        guard var pad = outputs[key]?.pad, let device = outputs[key]?.device else { return }
        let events = change(&pad)
        outputs[key]?.pad = pad
        guard !events.isEmpty else { return }
        do {
            try write(events, to: device)
            try device.synchronize()
        } catch {
            diagnostics.say("\(key): the virtual gamepad could not be written: \(error)")
        }
    }

    private func write(_ events: [VirtualGamepad.Event], to device: UinputDevice) throws {
        for e in events { try device.write(type: Int32(e.type), code: Int32(e.code), value: e.value) }
    }

    /// The stream fell silent: rest its device, and destroy it ``restBeforeRemoval`` later (at
    /// ``tick(now:)``), so that readers see it at rest before it goes.
    public func streamEnded(_ stream: StreamLabel) {
        failed.remove(stream)
        guard let output = outputs.removeValue(forKey: stream) else { return }
        rest(output)
        retiring.append((output.device, MonotonicClock.nanoseconds() + Self.restBeforeRemoval))
        diagnostics.say("\(stream): virtual device removed, everything released")
    }

    /// When the next device at rest is due to go, or a gamepad's gyroscope goes stale.
    public var nextDeadline: UInt64? {
        // Asked on every pass of the loop: no array is built for it.
        var earliest = retiring.first?.until
        for output in outputs.values {
            if let stale = output.pad?.staleAt { earliest = min(earliest ?? stale, stale) }
        }
        return earliest
    }

    /// Destroys the devices at rest whose time is up, and centres the gyro stick of gamepads whose
    /// stream stopped (a source gone, a sender silent) without waiting for the stream's end.
    public func tick(now: UInt64) throws {
        retiring.removeAll { $0.until <= now }
        for key in outputs.keys where (outputs[key]?.pad?.staleAt).map({ $0 <= now }) == true {
            pad(of: key) { $0.expire(now: now) }
        }
    }

    /// Rests and destroys every device (SIGINT, SIGTERM, errors). Devices stay 20 ms at rest before
    /// they go, here and on stream loss: evdev refuses every read of a device that is gone, queued
    /// events included, so a reader that had not yet read the centred axes and released buttons
    /// would never see them (the VM's joystick test lost them so once).
    public func finish() {
        for (_, output) in outputs { rest(output) }
        if !outputs.isEmpty || !retiring.isEmpty { MonotonicClock.sleep(nanoseconds: Self.restBeforeRemoval) }
        outputs.removeAll()
        retiring.removeAll()
        failed.removeAll()
    }

    /// How long devices stay at rest before they are destroyed at the end of a run.
    static let restBeforeRemoval: UInt64 = 20_000_000

    /// Checks, before anything listens or announces, that virtual devices can be created; throws
    /// what to do about it otherwise (module, permission, udev rule).
    public static func checkAccess() throws {
        do {
            try UinputDevice.checkAccess()
        } catch {
            throw ActionableError(PermissionAdvice.uinputMessage(for: error))
        }
    }

    /// Centres the axes and releases the buttons, in one frame.
    private func rest(_ output: Output) {
        let d = output.device
        if var pad = output.pad {
            try? write(pad.rest(), to: d)
        } else if mode != .pointer {
            for code in [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ] {
                try? d.write(type: Int32(EV_ABS), code: Int32(code), value: 0)
            }
        }
        for code in output.held { try? d.write(type: Int32(EV_KEY), code: code, value: 0) }
        try? d.synchronize()
    }

    private func create(for stream: StreamLabel) throws -> Output {
        // spacenavd, as installed, takes devices whose name contains "3Dconnexion".
        let label =
            mode == .spacemouse
            ? "spacemouse (3Dconnexion compatible)" : mode == .gamepad ? "gamepad (X-Box 360 pad)" : mode.rawValue
        var d = UinputDevice.Description(name: "mouse3d \(label) \(stream.sender)")
        d.vendor = 0x1209  // pid.codes, open-source hardware ids
        d.product = mode == .pointer ? 0x3D10 : mode == .joystick ? 0x3D11 : 0x3D12
        d.keys = clickCodes.map(\.1)
        switch mode {
        case .gamepad:
            // xpad's identity and capabilities to the code: SDL's database and Steam know the pad
            // by them (``Xbox360Layout``).
            d.bus = Int32(Xbox360Layout.bus)
            d.vendor = Int32(Xbox360Layout.vendor)
            d.product = Int32(Xbox360Layout.product)
            d.version = Int32(Xbox360Layout.version)
            d.keys = Xbox360Layout.keys.map(Int32.init)
            d.absoluteAxes = Xbox360Layout.axes.map {
                (
                    Int32($0.code),
                    AbsoluteAxisInfo(
                        value: 0, minimum: Int($0.minimum), maximum: Int($0.maximum), fuzz: Int($0.fuzz),
                        flat: Int($0.flat), resolution: 0)
                )
            }
        case .pointer:
            d.relativeAxes = [Int32(REL_X), Int32(REL_Y)]
        case .spacemouse:
            let limit = Int(SpaceMouseDeflection().limit)
            let axis = AbsoluteAxisInfo(value: 0, minimum: -limit, maximum: limit, fuzz: 0, flat: 0, resolution: 0)
            d.absoluteAxes = [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ].map { (Int32($0), axis) }
        case .joystick:
            let axis = AbsoluteAxisInfo(
                value: 0, minimum: Int(JoystickPose.range.lowerBound), maximum: Int(JoystickPose.range.upperBound),
                fuzz: 0, flat: 0, resolution: 0)
            d.absoluteAxes = [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ].map { (Int32($0), axis) }
        }
        let device: UinputDevice
        do {
            device = try UinputDevice(d)
        } catch {
            throw ActionableError(PermissionAdvice.uinputMessage(for: error))
        }
        diagnostics.say("\(stream): virtual \(mode.rawValue) '\(d.name)' at \(device.devicePath)")
        var pad: VirtualGamepad?
        if mode == .gamepad {
            pad = padTemplate
            try write(padTemplate.state, to: device)  // the frame's SYN_REPORT follows with its first update
        }
        return Output(device: device, pointer: PointerMotion(mapping: mapping), pad: pad)
    }
}
