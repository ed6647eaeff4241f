/// The gyroscope's part of a virtual gamepad stick: turns the stream of attitudes into the camera
/// velocity it asks for (°/s, right and down, in the mapping's gyro space, times its sensitivity,
/// nothing below its rest speed); ``GyroStickMapping/deflection(gyro:real:)`` then adds it to the
/// real stick. The clutch switches it, as it does the pointer (held, toggled, or held off).
public struct GyroStick: Sendable {
    /// The mapping in use (a reload may change it).
    public var mapping: GyroStickMapping
    private var turns = GyroSpaceTurns()
    private var lastTime: UInt64?
    /// The camera velocity the gyroscope asks for now (°/s, right and down).
    public private(set) var velocity = SIMD2<Double>.zero

    /// A gyro stick with `mapping`.
    public init(mapping: GyroStickMapping) { self.mapping = mapping }

    /// Feeds one attitude (radians, as ``Attitude``'s Euler angles) with the time of the motion it
    /// was fused from (`motionTimeNanoseconds`: the sample's own clock, or the sender's; nil for an
    /// update that carries no new motion, such as a button's, which changes nothing but the
    /// switch); returns the camera velocity the gyroscope asks for: zero while it is not `enabled`
    /// (the clutch) or at rest. Turned on again, it measures from the attitude before, not from
    /// when it was last on. A step faster than any gyroscope reads (``discontinuityDegreesPerSecond``:
    /// a recentre, a re-anchored stream) is no motion: the velocity stays as it was.
    public mutating func update(
        rollRadians: Double, pitchRadians: Double, yawRadians: Double, motionTimeNanoseconds: UInt64?, enabled: Bool
    ) -> SIMD2<Double> {
        let turn = turns.turn(
            in: mapping.gyroSpace, rollRadians: rollRadians, pitchRadians: pitchRadians, yawRadians: yawRadians)
        let last = lastTime
        if let t = motionTimeNanoseconds { lastTime = t }
        guard enabled else {
            velocity = .zero
            return velocity
        }
        guard let turn, let t = motionTimeNanoseconds, let last, t > last else { return velocity }
        let rate = turn / (Double(t - last) * 1e-9)
        let speed = (rate * rate).sum().squareRoot()
        guard speed <= Self.discontinuityDegreesPerSecond else { return velocity }
        guard speed >= max(mapping.restDegreesPerSecond, 1e-9) else {
            velocity = .zero
            return velocity
        }
        var v = rate * mapping.sensitivity
        if mapping.invertX { v.x = -v.x }
        if mapping.invertY { v.y = -v.y }
        velocity = v
        return v
    }

    /// Faster than any controller's gyroscope reads (they saturate at 2000 °/s): a step implying
    /// more is a jump of the attitude, not a turn.
    public static let discontinuityDegreesPerSecond = 2500.0

    /// The attitude's zero is being moved (the recenter button is held): nothing is asked for, and
    /// the turn is measured anew from the next attitude, so the jump is no motion.
    public mutating func recentring() {
        velocity = .zero
        turns.reset()
        lastTime = nil
    }

    /// The source went away or its stream ended: nothing asked for, and the next attitude starts
    /// anew (no turn measured across the gap).
    public mutating func rest() {
        velocity = .zero
        turns.reset()
        lastTime = nil
    }
}
