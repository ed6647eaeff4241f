import Mouse3DCore
import Testing

@Suite("Fusion learns the gyroscope's scale while the device turns")
struct GyroScaleFusionTests {
    /// 5 s still, then a hand turning the sensor back and forth at 200 °/s, one second each way, about
    /// axes that take turns (x, y, the diagonal, z), for `seconds`, then 5 s still. Readings are
    /// (1 + `scaleError`) times the true rate, as a gyroscope with a gain error (or a sample clock
    /// that runs fast) gives them.
    static func turning(scaleError: Double, seconds: Int = 120) -> [SyntheticMotion.Point] {
        let axes: [SIMD3<Double>] = [
            SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0) / 2.0.squareRoot(), SIMD3(0, 0, 1),
            SIMD3(1, 0, 1) / 2.0.squareRoot()
        ]
        var segments: [SyntheticMotion.Segment] = [.init(seconds: 5)]
        for i in 0..<(seconds / 2) {
            let axis = axes[i % axes.count] * (200 * degree)
            segments.append(.init(seconds: 1, radiansPerSecond: axis))
            segments.append(.init(seconds: 1, radiansPerSecond: -axis))
        }
        segments.append(.init(seconds: 5))
        let motion = noisy(SyntheticMotion(segments: segments, sampleRateHertz: 250))
        return motion.generate().map { point in
            var p = point
            p.sample.angularVelocityRadiansPerSecond *= 1 + scaleError
            return p
        }
    }

    /// The inclination error over the last half of `points` (degrees RMS) and the final scale estimate.
    static func run(_ points: [SyntheticMotion.Point], _ parameters: AttitudeEstimatorParameters) -> (
        rms: Double, scale: Double
    ) {
        var estimator = AttitudeEstimator(parameters: parameters)
        var sum = 0.0
        var count = 0
        for (i, p) in points.enumerated() {
            estimator.update(p.sample)
            if i >= points.count / 2 {
                let e = inclinationDegrees(estimator.quaternion, p.truth)
                sum += e * e
                count += 1
            }
        }
        return ((sum / Double(count)).squareRoot(), estimator.gyroScaleError)
    }

    @Test("A gyroscope 0.8% slow: the scale is learnt and the inclination error is less than half")
    func slowGyroscopeIsLearnt() {
        let points = Self.turning(scaleError: -0.008, seconds: 240)
        var fixed = AttitudeEstimatorParameters()
        fixed.gyroScaleEstimation = false
        let without = Self.run(points, fixed)
        let with = Self.run(points, AttitudeEstimatorParameters())
        #expect(abs(with.scale - -0.008) < 0.002, "scale estimated \(with.scale * 100)%, true -0.8%")
        #expect(with.rms < 0.5 * without.rms, "inclination \(with.rms)° learning the scale, \(without.rms)° not")
    }

    @Test("A gyroscope 1.5% fast, beyond the prior's spread: learnt as well")
    func fastGyroscopeIsLearnt() {
        let points = Self.turning(scaleError: 0.015, seconds: 480)
        let with = Self.run(points, AttitudeEstimatorParameters())
        #expect(abs(with.scale - 0.015) < 0.003, "scale estimated \(with.scale * 100)%, true 1.5%")
    }

    @Test("A true gyroscope: the scale stays near zero and nothing is lost")
    func trueGyroscopeStaysPut() {
        let points = Self.turning(scaleError: 0)
        var fixed = AttitudeEstimatorParameters()
        fixed.gyroScaleEstimation = false
        let without = Self.run(points, fixed)
        let with = Self.run(points, AttitudeEstimatorParameters())
        #expect(abs(with.scale) < 0.001, "scale estimated \(with.scale * 100)%")
        #expect(with.rms < 1.1 * without.rms + 0.01, "inclination \(with.rms)° learning the scale, \(without.rms)° not")
    }

    @Test("Per-axis scale errors and misaligned axes (synthetic hands, 4 seeds): one learnt scale costs nothing")
    func perAxisErrorsCostNothing() {
        var fixed = AttitudeEstimatorParameters()
        fixed.gyroScaleEstimation = false
        var with = 0.0
        var without = 0.0
        for seed in UInt64(1)...4 {
            // Scale errors up to ±1% per axis, axes misaligned up to ±0.5°: one scale catches their mean only.
            let points = HandMotion(seconds: 120, hertz: 100, seed: seed).generate()
            with += inclinationRMS(points, AttitudeEstimatorParameters())
            without += inclinationRMS(points, fixed)
        }
        #expect(with <= 1.02 * without, "inclination \(with / 4)° learning the scale, \(without / 4)° not")
    }

    @Test("A re-levelling (a long gap) and a calibration keep the scale learnt")
    func scaleSurvivesRelevelAndCalibration() {
        var estimator = AttitudeEstimator()
        let points = Self.turning(scaleError: -0.008, seconds: 240)
        for p in points { estimator.update(p.sample) }
        let learnt = estimator.gyroScaleError
        #expect(learnt < -0.005, "scale \(learnt * 100)% after turning")
        var late = points[points.count - 1].sample
        late.timestampNanoseconds += 5_000_000_000  // past the 2 s re-levelling gap
        estimator.update(late)
        estimator.startFromBias(.zero)
        #expect(estimator.gyroScaleError == learnt)
    }

    @Test("A sensor at rest from power-up: its bias does not move the scale")
    func restLeavesTheScaleAlone() {
        var motion = noisy(SyntheticMotion(segments: [.init(seconds: 60)], sampleRateHertz: 250))
        motion.gyroBiasRadiansPerSecond = SIMD3(0.6, -0.5, 0.8) * degree
        var estimator = AttitudeEstimator()
        for p in motion.generate() { estimator.update(p.sample) }
        // Only noise moves it before rest is detected (1.5 s).
        #expect(
            abs(estimator.gyroScaleError) < 0.0002, "scale \(estimator.gyroScaleError * 100)% after a minute at rest")
    }
}
