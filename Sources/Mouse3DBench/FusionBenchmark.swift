import Mouse3DCore

/// Timing and scoring of the fusion: samples per second on one core, and BROAD's errors of a log.
public enum FusionBenchmark {
    /// The best time in seconds of at least three runs of a fresh filter over `samples`, repeated for
    /// at least `seconds`; the checksum keeps the work from being optimised away.
    public static func measure(
        _ samples: [MotionSample], _ parameters: AttitudeEstimatorParameters, seconds: Double
    ) -> (best: Double, runs: Int, checksum: Double) {
        let clock = ContinuousClock()
        var best = Double.infinity
        var runs = 0
        var checksum = 0.0
        let start = clock.now
        repeat {
            var estimator = AttitudeEstimator(parameters: parameters)
            let t0 = clock.now
            for sample in samples { estimator.update(sample) }
            let elapsed = (clock.now - t0).seconds
            checksum += estimator.quaternion.w
            best = min(best, elapsed)
            runs += 1
        } while (clock.now - start).seconds < seconds || runs < 3
        return (best, runs, checksum)
    }

    /// BROAD's errors of a fresh filter over a log with ground truth, or nil without truth.
    public static func score(_ log: MotionLog, _ parameters: AttitudeEstimatorParameters) -> OrientationErrorMetrics? {
        guard let truth = log.truth else { return nil }
        var estimator = AttitudeEstimator(parameters: parameters)
        var estimates: [Quaternion] = []
        estimates.reserveCapacity(log.samples.count)
        for sample in log.samples {
            estimator.update(sample)
            estimates.append(estimator.quaternion)
        }
        return OrientationErrorMetrics(
            estimates: estimates, truth: truth, counted: log.movement, sampleRateHertz: sampleRate(log.samples))
    }

    /// The median sample rate of a log, in Hz.
    public static func sampleRate(_ samples: [MotionSample]) -> Double {
        guard samples.count > 1 else { return 1 }
        let gap = median(
            zip(samples.dropFirst(), samples).map { Double($0.timestampNanoseconds - $1.timestampNanoseconds) })
        return gap > 0 ? 1e9 / gap : 1
    }
}

extension Duration {
    /// The duration in seconds.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
