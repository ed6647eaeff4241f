import RealModule

/// A scripted motion with exact truth: a list of segments of constant angular velocity (sensor frame)
/// and linear acceleration (reference frame), sampled into ``MotionSample``s with optional bias and
/// noise. Used by tests, by benchmarks and to make the bundled sample log.
public struct SyntheticMotion: Sendable {
    /// One stretch of constant motion.
    public struct Segment: Sendable, Equatable {
        /// How long it lasts, in seconds.
        public var durationSeconds: Double
        /// Angular velocity in the sensor frame, in rad/s.
        public var angularVelocityRadiansPerSecond: SIMD3<Double>
        /// Linear acceleration in the reference frame (Z up), in m/s².
        public var linearAccelerationMetersPerSecondSquared: SIMD3<Double>

        /// Creates a segment.
        public init(
            seconds: Double, radiansPerSecond: SIMD3<Double> = .zero,
            linearAcceleration: SIMD3<Double> = .zero
        ) {
            durationSeconds = seconds
            angularVelocityRadiansPerSecond = radiansPerSecond
            linearAccelerationMetersPerSecondSquared = linearAcceleration
        }
    }

    /// The attitude at time zero.
    public var initialAttitude: Attitude
    /// The segments, played in order.
    public var segments: [Segment]
    /// Sample rate, in Hz.
    public var sampleRateHertz: Double
    /// A constant offset added to every gyroscope reading, in rad/s.
    public var gyroBiasRadiansPerSecond: SIMD3<Double> = .zero
    /// Standard deviation of white gyroscope noise, in rad/s.
    public var gyroNoiseRadiansPerSecond = 0.0
    /// Standard deviation of white accelerometer noise, in m/s².
    public var accelerometerNoiseMetersPerSecondSquared = 0.0
    /// Seed of the noise generator, so a script always makes the same samples.
    public var seed: UInt64 = 1

    /// Creates a script.
    public init(
        initialAttitude: Attitude = Attitude(quaternion: .identity), segments: [Segment], sampleRateHertz: Double
    ) {
        self.initialAttitude = initialAttitude
        self.segments = segments
        self.sampleRateHertz = sampleRateHertz
    }

    /// One generated sample with its true attitude.
    public struct Point: Sendable {
        /// The sensor reading.
        public var sample: MotionSample
        /// The true attitude at the sample's time.
        public var truth: Quaternion
    }

    /// The total duration, in seconds.
    public var durationSeconds: Double { segments.reduce(0) { $0 + $1.durationSeconds } }

    /// Generates every sample. The truth is integrated exactly (constant rate per segment).
    public func generate() -> [Point] {
        let period = 1 / sampleRateHertz
        let count = Int((durationSeconds * sampleRateHertz).rounded(.down)) + 1
        var random = SplitMix64(seed: seed)
        var points: [Point] = []
        points.reserveCapacity(count)
        var attitude = initialAttitude.quaternion
        var segmentIndex = 0
        var segmentEnd = segments.first?.durationSeconds ?? 0
        var time = 0.0
        for i in 0..<count {
            let t = Double(i) * period
            // Advance the truth from `time` to `t`, segment by segment.
            while time < t - 1e-12 {
                while segmentIndex < segments.count - 1 && time >= segmentEnd - 1e-12 {
                    segmentIndex += 1
                    segmentEnd += segments[segmentIndex].durationSeconds
                }
                let until = min(t, segmentIndex < segments.count - 1 ? segmentEnd : t)
                let omega = segments.isEmpty ? .zero : segments[segmentIndex].angularVelocityRadiansPerSecond
                attitude = (attitude * Self.rotation(omega, seconds: until - time)).normalized
                time = until
            }
            let current = segments.isEmpty ? Segment(seconds: 0) : segments[segmentIndex]
            let specificForceReference =
                SIMD3(0, 0, standardGravityMetersPerSecondSquared) + current.linearAccelerationMetersPerSecondSquared
            let specificForce = attitude.conjugate.rotate(specificForceReference)
            let gyro =
                current.angularVelocityRadiansPerSecond + gyroBiasRadiansPerSecond
                + gyroNoiseRadiansPerSecond * random.nextGaussian3()
            let accel = specificForce + accelerometerNoiseMetersPerSecondSquared * random.nextGaussian3()
            points.append(
                Point(
                    sample: MotionSample(
                        timestampNanoseconds: MotionLogParser.nanoseconds(fromSeconds: t),
                        angularVelocityRadiansPerSecond: gyro, specificForceMetersPerSecondSquared: accel),
                    truth: attitude))
        }
        return points
    }

    /// The rotation by a constant body rate over `seconds`.
    static func rotation(_ omega: SIMD3<Double>, seconds: Double) -> Quaternion {
        let rate = length(omega)
        guard rate > 0 else { return .identity }
        return Quaternion(axis: omega / rate, angleRadians: rate * seconds)
    }
}
