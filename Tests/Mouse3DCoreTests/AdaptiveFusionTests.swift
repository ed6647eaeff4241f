import Mouse3DCore
import RealModule
import Testing

@Suite("Adaptive accelerometer time constant and synthetic hand motion")
struct AdaptiveFusionTests {
    @Test("The same seed draws the same motion, another seed another one")
    func handMotionIsSeeded() {
        let a = HandMotion(seconds: 20, hertz: 100, seed: 7).generate()
        let b = HandMotion(seconds: 20, hertz: 100, seed: 7).generate()
        let c = HandMotion(seconds: 20, hertz: 100, seed: 8).generate()
        #expect(a.count == 2000)
        #expect(a.map(\.sample) == b.map(\.sample))
        #expect(a.map(\.sample) != c.map(\.sample))
    }

    @Test("A gyroscope range cuts each axis at it and leaves slower readings and the truth as they were")
    func handMotionGyroscopeRange() {
        var hand = HandMotion(seconds: 60, hertz: 100, seed: 5)
        hand.shaking = .init(peakStandardGravities: 4)
        let free = hand.generate()
        hand.gyroscopeRangeDegreesPerSecond = 120
        let cut = hand.generate()
        let limit = 120 * Double.pi / 180
        var changed = 0
        for (a, b) in zip(free, cut) {
            let expected = a.sample.angularVelocityRadiansPerSecond.clamped(
                lowerBound: SIMD3(repeating: -limit), upperBound: SIMD3(repeating: limit))
            #expect(b.sample.angularVelocityRadiansPerSecond == expected)
            #expect(
                b.truth == a.truth
                    && b.sample.specificForceMetersPerSecondSquared == a.sample.specificForceMetersPerSecondSquared)
            if expected != a.sample.angularVelocityRadiansPerSecond { changed += 1 }
        }
        #expect(changed > 0, "the shaking turns faster than 120 °/s somewhere (else this shows nothing)")
    }

    @Test("Hand motion is still for its first 5 s and its truth follows the gyroscope minus the bias")
    func handMotionTruth() {
        let points = HandMotion(seconds: 30, hertz: 200, seed: 3).generate()
        // Still: the truth does not move and the accelerometer reads gravity (plus noise).
        #expect(points[0].truth.angle(to: points[999].truth) < 1e-12)
        let force = points[500].sample.specificForceMetersPerSecondSquared
        #expect(abs(length(force) - standardGravityMetersPerSecondSquared) < 0.2)
        // Moving: integrating the gyroscope, minus the bias measured at rest, tracks the truth closely.
        var restMean = SIMD3<Double>.zero
        for p in points[0..<1000] { restMean += p.sample.angularVelocityRadiansPerSecond / 1000 }
        var attitude = points[1000].truth
        for i in 1001..<points.count {
            let omega =
                (points[i].sample.angularVelocityRadiansPerSecond + points[i - 1].sample.angularVelocityRadiansPerSecond)
                / 2 - restMean
            let rate = length(omega)
            if rate > 0 { attitude = (attitude * Quaternion(axis: omega / rate, angleRadians: rate / 200)).normalized }
        }
        let drift = attitude.angle(to: points.last!.truth) * 180 / .pi
        #expect(drift < 2, "gyroscope integration drifted \(drift)° from the truth in 25 s")
        #expect(points.contains { length($0.sample.angularVelocityRadiansPerSecond) > 0.5 })
    }

    @Test("Translation without turning lengthens the time constant; turning without translation keeps it short")
    func timeConstantFollowsMotion() {
        let range = AttitudeEstimatorParameters().adaptiveTimeConstantRangeSeconds!
        // Back and forth along x at 0.5 Hz, ±3 m/s², held level.
        var shaking: [SyntheticMotion.Segment] = [.init(seconds: 5)]
        for _ in 0..<30 {
            shaking.append(.init(seconds: 1, linearAcceleration: SIMD3(3, 0, 0)))
            shaking.append(.init(seconds: 1, linearAcceleration: SIMD3(-3, 0, 0)))
        }
        var estimator = AttitudeEstimator()
        for p in SyntheticMotion(segments: shaking, sampleRateHertz: 200).generate() { estimator.update(p.sample) }
        #expect(estimator.accelerometerTimeConstantSeconds > range.upperBound * 0.95)

        var turning: [SyntheticMotion.Segment] = [.init(seconds: 5)]
        for i in 0..<30 { turning.append(.init(seconds: 2, radiansPerSecond: SIMD3(0, 2, 1) * (i % 2 == 0 ? 1 : -1))) }
        estimator = AttitudeEstimator()
        for p in SyntheticMotion(segments: turning, sampleRateHertz: 200).generate() { estimator.update(p.sample) }
        #expect(estimator.accelerometerTimeConstantSeconds < range.lowerBound * 1.05)
    }

    /// Inclination errors of the adaptive filter and of each end of its range held fixed.
    static func compare(_ points: [SyntheticMotion.Point]) -> (adaptive: Double, short: Double, long: Double) {
        let range = AttitudeEstimatorParameters().adaptiveTimeConstantRangeSeconds!
        func fixed(_ tau: Double) -> AttitudeEstimatorParameters {
            var p = AttitudeEstimatorParameters()
            p.adaptiveTimeConstantRangeSeconds = nil
            p.accelerometerTimeConstantSeconds = tau
            return p
        }
        return (
            inclinationRMS(points, AttitudeEstimatorParameters()),
            inclinationRMS(points, fixed(range.lowerBound)),
            inclinationRMS(points, fixed(range.upperBound))
        )
    }

    @Test("Hand motion with translation: the adaptive filter is within 10% of the long end, far better than the short")
    func adaptiveOnHandMotion() {
        var sum = (adaptive: 0.0, short: 0.0, long: 0.0)
        for seed in UInt64(1)...3 {
            let e = Self.compare(HandMotion(seconds: 90, hertz: 100, seed: seed).generate())
            sum = (sum.adaptive + e.adaptive, sum.short + e.short, sum.long + e.long)
        }
        #expect(sum.adaptive < 0.9 * sum.short, "adaptive \(sum.adaptive / 3)°, τ short \(sum.short / 3)°")
        // Within 2% while the synthetic hand pushed for seconds beyond an arm's reach and its gyroscope had
        // no scale or axis errors; 5% worse since (the note of issue 31).
        #expect(sum.adaptive < 1.1 * sum.long, "adaptive \(sum.adaptive / 3)°, τ long \(sum.long / 3)°")
    }
}

extension Quaternion {
    /// The angle of the rotation between two attitudes, in radians.
    fileprivate func angle(to other: Quaternion) -> Double {
        let d = abs(w * other.w + x * other.x + y * other.y + z * other.z)
        return 2 * Double.acos(min(1, d))
    }
}
