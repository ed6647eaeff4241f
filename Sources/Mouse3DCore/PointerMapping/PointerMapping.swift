import RealModule

/// How a gyro mouse turns angular motion into pointer counts, with what the best gyro-aiming tools
/// offer: tightening of very small motions, smoothing of tiny motions only, an acceleration curve,
/// inversion and swapping, and the fractional remainder kept between events.
public struct PointerMapping: Sendable, Equatable {
    /// Pointer counts per degree of turn at the base sensitivity.
    public var countsPerDegree = 20.0
    /// Below this speed (°/s) motion is scaled down in proportion (speed / threshold), so hand
    /// tremor does not move the pointer; 0 turns tightening off.
    public var tighteningDegreesPerSecond = 0.0
    /// Below this speed (°/s) motion is averaged over ``smoothingWindowSeconds``; above twice it,
    /// passed through; blended between. 0 turns smoothing off.
    public var smoothingDegreesPerSecond = 0.0
    /// The averaging window of smoothing, in seconds.
    public var smoothingWindowSeconds = 0.1
    /// Acceleration: sensitivity rises from 1× at ``accelerationLowDegreesPerSecond`` to
    /// ``accelerationFactor``× at ``accelerationHighDegreesPerSecond``.
    public var accelerationLowDegreesPerSecond = 0.0
    /// See ``accelerationLowDegreesPerSecond``.
    public var accelerationHighDegreesPerSecond = 0.0
    /// The sensitivity multiplier at and above the high speed (1: no acceleration).
    public var accelerationFactor = 1.0
    /// Mirror the horizontal axis.
    public var invertX = false
    /// Mirror the vertical axis.
    public var invertY = false
    /// Exchange the axes (yaw drives vertical, pitch horizontal).
    public var swapAxes = false
    /// Which turns move the pointer (GyroWiki's gyro space).
    public var gyroSpace = GyroSpace.world

    /// The defaults: 20 counts per degree, no tightening, smoothing or acceleration.
    public init() {}

    /// Natural sensitivity (GyroWiki's "real world" sensitivity): a turn of `degrees` moves the
    /// pointer across `pixels` (a screen's width), at the base speed. A flat pointer profile on the
    /// desktop makes counts pixels.
    public mutating func setScreen(turnDegrees degrees: Double, widthPixels pixels: Double) {
        countsPerDegree = pixels / degrees
    }

    /// Degrees of turn that cross `pixels` at the base sensitivity.
    public func turnDegrees(acrossPixels pixels: Double) -> Double { pixels / countsPerDegree }
}

/// Which turns of the controller move the pointer, in GyroWiki's terms.
public enum GyroSpace: String, Sendable, CaseIterable {
    /// About the controller's own axes: its yaw axis moves the pointer sideways, its pitch axis up
    /// and down, however it is held (a tilted grip mixes the two).
    case local
    /// Sideways by turns about gravity, whatever the grip; up and down by turns about the
    /// controller's pitch axis laid flat (so a rolled grip adds nothing vertical).
    case player
    /// Sideways by turns about gravity, up and down by the nose rising and falling (the attitude's
    /// yaw and pitch).
    case world
}

/// The state of a gyro mouse: turns a stream of attitudes into relative pointer motion.
/// Turning right (yaw decreasing, clockwise seen from above) moves the pointer right (+X); nose
/// down (pitch increasing) moves it down (+Y), as screen coordinates grow.
public struct PointerMotion: Sendable {
    /// The mapping in use.
    public var mapping: PointerMapping
    private var previous: (yaw: Double, pitch: Double, time: UInt64)?
    private var previousAttitude: Quaternion?
    private var remainder = SIMD2<Double>.zero
    /// The smoothed parts of the last steps, oldest first.
    private var window: [SIMD2<Double>] = []

    /// A gyro mouse with `mapping`.
    public init(mapping: PointerMapping) { self.mapping = mapping }

    /// Feeds one attitude (radians) received at `timeNanoseconds`; returns whole counts to move.
    /// While `enabled` is false (clutch released) nothing moves, and motion restarts from the next
    /// attitude without a jump.
    public mutating func update(yawRadians: Double, pitchRadians: Double, timeNanoseconds t: UInt64, enabled: Bool) -> (dx: Int32, dy: Int32) {
        update(rollRadians: 0, pitchRadians: pitchRadians, yawRadians: yawRadians, timeNanoseconds: t, enabled: enabled)
    }

    /// Feeds one whole attitude (radians, as ``Attitude``'s Euler angles); needed for the local and
    /// player gyro spaces, which depend on the grip (roll).
    public mutating func update(
        rollRadians: Double, pitchRadians: Double, yawRadians: Double, timeNanoseconds t: UInt64, enabled: Bool
    ) -> (dx: Int32, dy: Int32) {
        let yaw = yawRadians * 180 / .pi, pitch = pitchRadians * 180 / .pi
        let attitude = mapping.gyroSpace == .world
            ? nil : Attitude(rollRadians: rollRadians, pitchRadians: pitchRadians, yawRadians: yawRadians).quaternion
        let before = previousAttitude
        defer {
            previous = (yaw, pitch, t)
            previousAttitude = attitude
        }
        guard enabled, let p = previous, t > p.time else {
            if !enabled { remainder = .zero; window.removeAll() }
            return (0, 0)
        }
        var delta: SIMD2<Double>  // degrees: right, down
        if let attitude, let before {
            // The turn since the last attitude, as a rotation vector in the controller's frame and in the world's.
            let body = (before.conjugate * attitude).rotationVector * (180 / .pi)
            let world = (attitude * before.conjugate).rotationVector * (180 / .pi)
            if mapping.gyroSpace == .local {
                delta = SIMD2(-body.z, body.y)
            } else {
                // Up and down about the controller's pitch axis laid flat (perpendicular to gravity), so a
                // turn about gravity never shows vertically whatever the grip.
                let axis = attitude.rotate(SIMD3(0, 1, 0))
                let flat = SIMD3(axis.x, axis.y, 0)
                let pitch = length(flat) > 1e-6 ? dot(world, flat / length(flat)) : body.y
                delta = SIMD2(-world.z, pitch)
            }
        } else {
            var dyaw = yaw - p.yaw
            if dyaw > 180 { dyaw -= 360 } else if dyaw < -180 { dyaw += 360 }
            delta = SIMD2(-dyaw, pitch - p.pitch)
        }
        let seconds = Double(t - p.time) * 1e-9
        let speed = (delta * delta).sum().squareRoot() / seconds
        let m = mapping

        if m.smoothingDegreesPerSecond > 0 {
            // Soft tiers: the part of each step to be smoothed is spread evenly over the next N steps
            // (N steps span the window), the rest passes at once, so nothing is counted twice or lost:
            // a turn ends where it would have without smoothing.
            let direct = min(1, max(0, (speed - m.smoothingDegreesPerSecond) / m.smoothingDegreesPerSecond))
            let steps = max(1, min(1000, Int((m.smoothingWindowSeconds / seconds).rounded())))
            window.append(delta * (1 - direct))
            if window.count > steps { window.removeFirst(window.count - steps) }
            delta = direct * delta + window.reduce(SIMD2<Double>.zero, +) / Double(steps)
        }
        if m.tighteningDegreesPerSecond > 0 && speed < m.tighteningDegreesPerSecond {
            delta *= speed / m.tighteningDegreesPerSecond
        }
        var gain = m.countsPerDegree
        if m.accelerationFactor != 1 && m.accelerationHighDegreesPerSecond > m.accelerationLowDegreesPerSecond {
            let f = min(1, max(0, (speed - m.accelerationLowDegreesPerSecond) / (m.accelerationHighDegreesPerSecond - m.accelerationLowDegreesPerSecond)))
            gain *= 1 + (m.accelerationFactor - 1) * f
        }
        var counts = delta * gain
        if m.swapAxes { counts = SIMD2(counts.y, counts.x) }
        if m.invertX { counts.x = -counts.x }
        if m.invertY { counts.y = -counts.y }
        counts += remainder
        let whole = SIMD2((counts.x).rounded(.towardZero), (counts.y).rounded(.towardZero))
        remainder = counts - whole
        return (Int32(clamping: Int64(whole.x)), Int32(clamping: Int64(whole.y)))
    }
}

/// Absolute pose on joystick axes, in the style of opentrack's virtual joystick: ABS_RX roll,
/// ABS_RY pitch, ABS_RZ yaw, each ±180° on ±32767 (pitch, limited to ±90°, spans ±16384);
/// ABS_X, ABS_Y, ABS_Z (translation) stay at 0.
public enum JoystickPose {
    /// The axis range.
    public static let range: ClosedRange<Int32> = -32767...32767

    /// The value of an angle in radians on a ±180° axis.
    public static func value(radians: Double) -> Int32 {
        let v = (radians / .pi * 32767).rounded()
        return Int32(max(-32767, min(32767, v)))
    }
}

/// Deflections for a 6-DoF "space mouse": a tilt away from the (recentred) zero is a rate, so a
/// held tilt keeps moving the view. RX follows pitch (tilt forward/back), RY yaw (twist), RZ roll;
/// translations stay 0. Values grow by ``countsPerDegree`` beyond a dead zone, up to ±``limit``
/// (the range of a SpaceNavigator, about ±350).
public struct SpaceMouseDeflection: Sendable, Equatable {
    /// Counts per degree of tilt beyond the dead zone.
    public var countsPerDegree = 10.0
    /// Tilts smaller than this (degrees) give 0.
    public var deadZoneDegrees = 2.0
    /// The largest magnitude.
    public var limit: Int32 = 350

    /// The defaults: 10 counts per degree beyond 2°, limited to ±350.
    public init() {}

    /// RX, RY, RZ for an attitude's roll, pitch and yaw (radians).
    public func rotation(rollRadians: Double, pitchRadians: Double, yawRadians: Double) -> SIMD3<Int32> {
        func axis(_ radians: Double) -> Int32 {
            let degrees = radians * 180 / .pi
            let beyond = max(0, abs(degrees) - deadZoneDegrees) * (degrees < 0 ? -1 : 1)
            return Int32(max(-Double(limit), min(Double(limit), (beyond * countsPerDegree).rounded())))
        }
        return SIMD3(axis(pitchRadians), axis(yawRadians), axis(rollRadians))
    }
}

/// Keeps a held absolute deflection flowing: the kernel drops an absolute event whose value equals
/// the axis's current value, so a repeated non-zero value is sent alternately as itself and one
/// count nearer zero; a return to 0 is a change and is sent once. (Relative axes cannot carry a
/// return to rest at all: the kernel drops zero relative events.)
public struct HeldValueDither: Sendable {
    private var last: [Int32]

    /// A dither for `axes` axes, all at 0.
    public init(axes: Int) { last = [Int32](repeating: 0, count: axes) }

    /// The value to write on `axis` for deflection `value`, or `nil` when nothing needs writing.
    public mutating func next(axis: Int, value: Int32) -> Int32? {
        let out: Int32?
        if value == 0 {
            out = last[axis] == 0 ? nil : 0
        } else if value != last[axis] {
            out = value
        } else {
            out = value > 0 ? value - 1 : value + 1
        }
        if let out { last[axis] = out }
        return out
    }
}

extension PointerMapping {
    /// Parses an acceleration curve `LOW:HIGH:FACTOR` (°/s, °/s, times): nil unless
    /// 0 <= LOW < HIGH and FACTOR > 0.
    public static func accelerationCurve(_ text: String) -> (low: Double, high: Double, factor: Double)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 3, let low = parts[0], let high = parts[1], let factor = parts[2],
              low >= 0, high > low, factor > 0, high.isFinite, factor.isFinite
        else { return nil }
        return (low, high, factor)
    }
}
