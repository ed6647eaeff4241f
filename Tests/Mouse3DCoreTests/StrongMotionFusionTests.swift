import Mouse3DCore
import Testing

@Suite("Fusion under strong hand motion: nothing before the low-pass that breaks a zero mean")
struct StrongMotionFusionTests {
    /// A hand shaking the controller along a diagonal (45° from vertical) at 2 Hz, ±3.5 g, for 20 s
    /// after 5 s still, then 5 s still again. Going up, the force reaches 4.3 g; going down, 2.9 g. The
    /// hand's velocity swings around zero (it starts and ends with a quarter period), as a hand's does.
    static func diagonalShake(hertz: Double = 200, start: Attitude = Attitude(quaternion: .identity))
        -> [SyntheticMotion.Point]
    {
        let g = standardGravityMetersPerSecondSquared
        let push = SIMD3(1.0, 0, 1) / 2.0.squareRoot() * 3.5 * g
        var segments: [SyntheticMotion.Segment] = [.init(seconds: 5), .init(seconds: 0.125, linearAcceleration: push)]
        for i in 0..<79 {
            segments.append(.init(seconds: 0.25, linearAcceleration: i % 2 == 0 ? -push : push))
        }
        segments.append(.init(seconds: 0.125, linearAcceleration: push))
        segments.append(.init(seconds: 5))
        return noisy(SyntheticMotion(initialAttitude: start, segments: segments, sampleRateHertz: hertz)).generate()
    }

    /// The largest inclination error over `points`, in degrees.
    static func worstInclination(_ points: [SyntheticMotion.Point], _ parameters: AttitudeEstimatorParameters) -> Double
    {
        var estimator = AttitudeEstimator(parameters: parameters)
        var worst = 0.0
        for p in points {
            estimator.update(p.sample)
            worst = max(worst, inclinationDegrees(estimator.quaternion, p.truth))
        }
        return worst
    }

    @Test("Shaking harder than 4 g: a 4 g limit before the low-pass errs more than twice as much as none")
    func limitBreaksTheZeroMean() {
        let points = Self.diagonalShake()
        var clipped = AttitudeEstimatorParameters()
        clipped.impactLimitStandardGravities = 4
        let withLimit = Self.worstInclination(points, clipped)
        let without = Self.worstInclination(points, AttitudeEstimatorParameters())
        #expect(withLimit > 2 * without, "with the 4 g limit \(withLimit)°, without \(without)°")
        #expect(without < 1.5, "the default filter tilted \(without)°")
    }

    @Test("A saturating accelerometer whose range the filter knows: its shaking errs less than half as much")
    func saturationIsCutAlikeOnBothSides() {
        // Along the same diagonal, held pitched by 30°, with an accelerometer that reads at most ±3 g per
        // axis: the axes that gravity adds to saturate more on one side than on the other.
        let g = standardGravityMetersPerSecondSquared
        let limit = SIMD3(repeating: 3 * g)
        let pitched = Attitude(rollRadians: 0, pitchRadians: 30 * degree, yawRadians: 0)
        let points = Self.diagonalShake(start: pitched).map { point in
            var p = point
            p.sample.specificForceMetersPerSecondSquared = p.sample.specificForceMetersPerSecondSquared
                .clamped(lowerBound: -limit, upperBound: limit)
            return p
        }
        var knowing = AttitudeEstimatorParameters()
        knowing.accelerometerRangeMetersPerSecondSquared = 3 * g
        let unaware = Self.worstInclination(points, AttitudeEstimatorParameters())
        let aware = Self.worstInclination(points, knowing)
        #expect(aware < 0.5 * unaware, "knowing the range \(aware)°, not knowing it \(unaware)°")
        #expect(aware < 1, "knowing the range \(aware)°")
    }

    @Test("A tap and its rebound (zero mean) barely tilt the estimate without any limit")
    func tapWithReboundAveragesOut() {
        let g = standardGravityMetersPerSecondSquared
        let motion = noisy(
            SyntheticMotion(
                segments: [
                    .init(seconds: 3), .init(seconds: 0.005, linearAcceleration: SIMD3(0, 20 * g, 0)),
                    .init(seconds: 0.02, linearAcceleration: SIMD3(0, -5 * g, 0)), .init(seconds: 3)
                ], sampleRateHertz: 1000))
        let worst = Self.worstInclination(motion.generate(), AttitudeEstimatorParameters())
        #expect(worst < 0.5, "a 20 g tap with its rebound tilted \(worst)°")
    }

    @Test("An axis that saturates at both ends is left as the sensor cut it: knowing the range never costs much")
    func bothEndsSaturatedIsLeftAlone() {
        // Seed 17 shaking at up to 6 g on a ±4 g sensor: 30–46% of the readings saturated for 18 s, on two
        // axes at both ends. A cut centred on the estimate fed back there (3.4° against 1.6° not knowing
        // the range, VQF 1.9°).
        var hand = HandMotion(seconds: 120, hertz: 250, seed: 17)
        hand.shaking = HandMotion.Shaking(peakStandardGravities: 6)
        hand.accelerometerRangeStandardGravities = 4
        let points = hand.generate()
        var knowing = AttitudeEstimatorParameters()
        knowing.accelerometerRangeMetersPerSecondSquared = 4 * standardGravityMetersPerSecondSquared
        let aware = inclinationRMS(points, knowing)
        let unaware = inclinationRMS(points, AttitudeEstimatorParameters())
        #expect(aware < 1.2 * unaware, "knowing the range \(aware)°, not knowing it \(unaware)°")
    }
}
