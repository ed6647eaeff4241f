import Mouse3DCore
import Testing

@Suite("Irregular timestamps and sample rates")
struct TimestampHandlingTests {
    /// Rotation at 30 °/s about a tilted axis, sampled at 100 Hz, then 1 kHz, then 50 Hz.
    func rateChangingSamples() -> [SyntheticMotion.Point] {
        let rate = SIMD3<Double>(30, 10, -20) * degree
        var points: [SyntheticMotion.Point] = []
        var offset: Int64 = 0
        var start = Attitude(quaternion: .identity)
        for (seconds, hertz) in [(3.0, 100.0), (3.0, 1000.0), (3.0, 50.0)] {
            let part = SyntheticMotion(
                initialAttitude: start, segments: [.init(seconds: seconds, radiansPerSecond: rate)],
                sampleRateHertz: hertz
            ).generate()
            for var p in part.dropFirst(points.isEmpty ? 0 : 1) {
                p.sample.timestampNanoseconds += offset
                points.append(p)
            }
            offset = points.last!.sample.timestampNanoseconds
            start = Attitude(quaternion: points.last!.truth)
        }
        return points
    }

    @Test("Sample-rate changes keep the attitude within 1° of truth")
    func rateChanges() {
        var estimator = AttitudeEstimator()
        var worst = 0.0
        for p in rateChangingSamples() {
            estimator.update(p.sample)
            worst = max(worst, angleDegrees(estimator.quaternion, p.truth))
        }
        #expect(worst < 1, "worst error \(worst)°")
        #expect(estimator.counters.timestampGlitches == 0)
    }

    @Test("Duplicate, backward, and late timestamps neither crash nor corrupt the attitude")
    func glitches() {
        let clean = rateChangingSamples()
        var glitched = clean
        glitched[50].sample.timestampNanoseconds = glitched[49].sample.timestampNanoseconds  // duplicate
        glitched[120].sample.timestampNanoseconds -= 5_000_000_000  // far backwards
        glitched[200].sample.timestampNanoseconds = glitched[199].sample.timestampNanoseconds - 1  // one ns back
        glitched[250].sample.timestampNanoseconds = Int64.max  // overflow bait
        glitched[251].sample.timestampNanoseconds = Int64.min
        var estimator = AttitudeEstimator()
        var worst = 0.0
        for p in glitched {
            estimator.update(p.sample)
            #expect(estimator.quaternion.isFinite)
            #expect(abs(estimator.quaternion.norm - 1) < 1e-9)
            worst = max(worst, angleDegrees(estimator.quaternion, p.truth))
        }
        #expect(estimator.counters.samples == glitched.count)
        #expect(estimator.counters.timestampGlitches >= 4)
        #expect(estimator.counters.gapsClamped + estimator.counters.resets >= 2)
        #expect(worst < 3, "a handful of glitches cost at most a few samples of rotation, got \(worst)°")
    }

    @Test("A long gap is clamped, not integrated blindly")
    func longGapIsClamped() {
        // At rest with a rotating gyroscope reading during a 1 s gap: integrating blindly would turn 90°.
        var points = SyntheticMotion(segments: [.init(seconds: 2)], sampleRateHertz: 100).generate()
        points[100].sample.angularVelocityRadiansPerSecond = SIMD3(0, 0, 90 * degree)
        for i in 100..<points.count { points[i].sample.timestampNanoseconds += 1_000_000_000 }
        var estimator = AttitudeEstimator()
        for p in points { estimator.update(p.sample) }
        #expect(estimator.counters.gapsClamped == 1)
        #expect(angleDegrees(estimator.quaternion, .identity) < 1.5)
    }

    @Test("A very long gap re-levels from the accelerometer")
    func veryLongGapRelevels() {
        var points = SyntheticMotion(segments: [.init(seconds: 2)], sampleRateHertz: 100).generate()
        let tilted = Attitude(rollRadians: 30 * degree, pitchRadians: 0, yawRadians: 0)
        let after = SyntheticMotion(initialAttitude: tilted, segments: [.init(seconds: 0.5)], sampleRateHertz: 100)
            .generate().map { p -> SyntheticMotion.Point in
                var p = p
                p.sample.timestampNanoseconds += 60_000_000_000
                return p
            }
        points += after
        var estimator = AttitudeEstimator()
        for p in points { estimator.update(p.sample) }
        #expect(estimator.counters.resets == 1)
        #expect(abs(estimator.attitude.rollRadians - 30 * degree) < 0.5 * degree)
    }

    @Test("NaN and infinite readings are counted and ignored")
    func invalidReadings() {
        var points = SyntheticMotion(segments: [.init(seconds: 1)], sampleRateHertz: 100).generate()
        points[10].sample.angularVelocityRadiansPerSecond.x = .nan
        points[20].sample.specificForceMetersPerSecondSquared.z = .infinity
        var estimator = AttitudeEstimator()
        for p in points { estimator.update(p.sample) }
        #expect(estimator.counters.invalidSamples == 2)
        #expect(angleDegrees(estimator.quaternion, .identity) < 0.1)
    }
}
