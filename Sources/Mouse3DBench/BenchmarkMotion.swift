import Mouse3DCore

/// The built-in motion used by benchmarks.
public enum BenchmarkMotion {
    /// Twelve rotations about the three axes at rising rates, with rests and some translation, at
    /// 1 kHz, with gyroscope bias and noise on both sensors.
    public static func script() -> SyntheticMotion {
        var segments: [SyntheticMotion.Segment] = []
        for i in 0..<12 {
            let axis = SIMD3<Double>(i % 3 == 0 ? 1 : 0, i % 3 == 1 ? 1 : 0, i % 3 == 2 ? 1 : 0)
            segments.append(.init(seconds: 1))
            segments.append(
                .init(
                    seconds: 2, radiansPerSecond: axis * (Double(i % 4) + 1) * 0.8,
                    linearAcceleration: SIMD3(0.5, -0.3, 0.2) * Double(i % 2)))
            segments.append(.init(seconds: 2, radiansPerSecond: -axis * 0.5))
        }
        var motion = SyntheticMotion(segments: segments, sampleRateHertz: 1000)
        motion.gyroBiasRadiansPerSecond = SIMD3(0.01, -0.005, 0.003)
        motion.gyroNoiseRadiansPerSecond = 0.005
        motion.accelerometerNoiseMetersPerSecondSquared = 0.05
        return motion
    }
}
