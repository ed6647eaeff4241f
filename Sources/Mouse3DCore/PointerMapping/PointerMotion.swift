import RealModule

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
    public mutating func update(yawRadians: Double, pitchRadians: Double, timeNanoseconds t: UInt64, enabled: Bool) -> (
        dx: Int32, dy: Int32
    ) {
        update(rollRadians: 0, pitchRadians: pitchRadians, yawRadians: yawRadians, timeNanoseconds: t, enabled: enabled)
    }

    /// Feeds one whole attitude (radians, as ``Attitude``'s Euler angles); needed for the local and
    /// player gyro spaces, which depend on the grip (roll).
    public mutating func update(
        rollRadians: Double, pitchRadians: Double, yawRadians: Double, timeNanoseconds t: UInt64, enabled: Bool
    ) -> (dx: Int32, dy: Int32) {
        let yaw = yawRadians * 180 / .pi
        let pitch = pitchRadians * 180 / .pi
        let attitude =
            mapping.gyroSpace == .world
            ? nil : Attitude(rollRadians: rollRadians, pitchRadians: pitchRadians, yawRadians: yawRadians).quaternion
        let before = previousAttitude
        defer {
            previous = (yaw, pitch, t)
            previousAttitude = attitude
        }
        guard enabled, let p = previous, t > p.time else {
            if !enabled {
                remainder = .zero
                window.removeAll()
            }
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
            let f = min(
                1,
                max(
                    0,
                    (speed - m.accelerationLowDegreesPerSecond)
                        / (m.accelerationHighDegreesPerSecond - m.accelerationLowDegreesPerSecond)))
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
