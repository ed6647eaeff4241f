import RealModule

/// The state of a gyro mouse: turns a stream of attitudes into relative pointer motion.
/// Turning right (yaw decreasing, clockwise seen from above) moves the pointer right (+X); nose
/// down (pitch increasing) moves it down (+Y), as screen coordinates grow.
public struct PointerMotion: Sendable {
    /// The mapping in use.
    public var mapping: PointerMapping
    private var turns = GyroSpaceTurns()
    private var previousTime: UInt64?
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
        let last = previousTime
        previousTime = t
        let turn = turns.turn(
            in: mapping.gyroSpace, rollRadians: rollRadians, pitchRadians: pitchRadians, yawRadians: yawRadians)
        guard enabled, var delta = turn, let last, t > last else {  // degrees: right, down
            if !enabled {
                remainder = .zero
                window.removeAll()
            }
            return (0, 0)
        }
        let seconds = Double(t - last) * 1e-9
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
