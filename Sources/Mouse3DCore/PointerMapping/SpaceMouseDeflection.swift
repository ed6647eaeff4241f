import RealModule

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
