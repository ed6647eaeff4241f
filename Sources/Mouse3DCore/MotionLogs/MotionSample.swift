/// One reading of a 6-axis inertial sensor, in the sensor's own frame.
public struct MotionSample: Sendable, Equatable {
    /// A monotonic timestamp, in nanoseconds. Only differences between samples matter.
    public var timestampNanoseconds: Int64
    /// Angular velocity about the sensor's x, y and z axes, in radians per second.
    public var angularVelocityRadiansPerSecond: SIMD3<Double>
    /// Specific force (acceleration minus gravity, so +9.81 m/s² up at rest), in m/s².
    public var specificForceMetersPerSecondSquared: SIMD3<Double>

    /// Creates a sample.
    @inlinable
    public init(
        timestampNanoseconds: Int64,
        angularVelocityRadiansPerSecond: SIMD3<Double>,
        specificForceMetersPerSecondSquared: SIMD3<Double>
    ) {
        self.timestampNanoseconds = timestampNanoseconds
        self.angularVelocityRadiansPerSecond = angularVelocityRadiansPerSecond
        self.specificForceMetersPerSecondSquared = specificForceMetersPerSecondSquared
    }

    /// The timestamp in seconds.
    @inlinable
    public var timestampSeconds: Double { Double(timestampNanoseconds) * 1e-9 }
}

/// Standard gravity, in m/s².
public let standardGravityMetersPerSecondSquared = 9.80665
