extension SyntheticMotion {
    /// The motion of the bundled sample log: a desk gesture of about 12 s at `sampleRateHertz` with
    /// realistic noise and bias — rest, turn right and back, nod, tilt, a slow circle, rest.
    public static func demo(sampleRateHertz: Double = 100) -> SyntheticMotion {
        let d = Double.pi / 180
        var motion = SyntheticMotion(
            initialAttitude: Attitude(rollRadians: 2 * d, pitchRadians: -3 * d, yawRadians: 0),
            segments: [
                .init(seconds: 2),
                .init(seconds: 1, radiansPerSecond: SIMD3(0, 0, -45 * d)),
                .init(seconds: 1, radiansPerSecond: SIMD3(0, 0, 45 * d)),
                .init(seconds: 0.5),
                .init(seconds: 0.75, radiansPerSecond: SIMD3(0, -40 * d, 0), linearAcceleration: SIMD3(0.3, 0, 0)),
                .init(seconds: 0.75, radiansPerSecond: SIMD3(0, 40 * d, 0), linearAcceleration: SIMD3(-0.3, 0, 0)),
                .init(seconds: 0.5),
                .init(seconds: 1, radiansPerSecond: SIMD3(60 * d, 0, 0)),
                .init(seconds: 1, radiansPerSecond: SIMD3(-60 * d, 0, 0)),
                .init(seconds: 2, radiansPerSecond: SIMD3(10 * d, 20 * d, 30 * d)),
                .init(seconds: 1.5)
            ],
            sampleRateHertz: sampleRateHertz)
        motion.gyroBiasRadiansPerSecond = SIMD3(0.3, -0.2, 0.1) * d
        motion.gyroNoiseRadiansPerSecond = 0.1 * d
        motion.accelerometerNoiseMetersPerSecondSquared = 0.03
        motion.seed = 2026
        return motion
    }
}
