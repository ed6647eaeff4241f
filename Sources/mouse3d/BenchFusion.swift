import ArgumentParser
import Mouse3DCore

extension Mouse3D {
    /// `mouse3d bench fusion`: fused samples per second on one core.
    struct BenchFusion: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fusion",
            abstract: "Fused samples per second on one core; the figure is on the last line.",
            discussion: "Without a log, a built-in 60 s scripted motion at 1 kHz with noise and bias is used.")

        @Argument(help: "A motion log to fuse (CSV); the built-in scripted motion if omitted.")
        var log: String?

        @Option(help: "Minimum measuring time in seconds; the best of the repetitions is reported.")
        var seconds: Double = 3

        @OptionGroup var filter: FilterOptions

        func validate() throws {
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600].") }
        }

        func run() throws {
            let parameters = try filter.parameters()
            let samples: [MotionSample]
            let source: String
            if let log {
                samples = try loadMotionLog(path: log).samples
                source = log
            } else {
                samples = BenchmarkMotion.script().generate().map(\.sample)
                source = "built-in scripted motion"
            }
            print("input: \(source), \(samples.count) samples")
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
            let nanosecondsPerSample = best / Double(samples.count) * 1e9
            print("runs: \(runs), best: \(fixed(best * 1000, 2)) ms, \(fixed(nanosecondsPerSample, 1)) ns/sample (checksum \(fixed(checksum, 3)))")
            print("\(Int(Double(samples.count) / best)) samples/s")
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
