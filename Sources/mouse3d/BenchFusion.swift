import ArgumentParser
import Mouse3DAssembly
import Mouse3DBench
import Mouse3DCore

extension Mouse3D {
    /// `mouse3d bench fusion`: fused samples per second on one core.
    struct BenchFusion: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fusion",
            abstract: "Fused samples per second on one core; the figure is on the last line.",
            discussion: """
                Without a log, a built-in 60 s scripted motion at 1 kHz with noise and bias is used. If --python \
                can import the PyPI package vqf, VQF's C++ filter (its updateBatch loop) is timed on the same \
                samples between two rounds of mouse3d's, and the ratio is printed.
                """)

        @Argument(help: "A motion log to fuse (CSV); the built-in scripted motion if omitted.")
        var log: String?

        @Option(help: "Minimum measuring time in seconds; the best of the repetitions is reported.")
        var seconds: Double = 3

        @Option(help: "Python interpreter to time VQF's C++ with (pip install vqf); 'none' skips it.")
        var python = "python3"

        @OptionGroup var filter: FilterOptions

        func validate() throws {
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600].") }
        }

        func run() throws {
            let parameters = try filter.parameters()
            let (samples, source) = try input()
            print("input: \(source), \(samples.count) samples")
            var (best, runs, checksum) = measure(samples, parameters)
            if python != "none" {
                switch ReferenceFilter.samplesPerSecond(python: python, samples: samples, seconds: seconds) {
                case .measured(let rate, let version):
                    // A second round of ours after the reference: both sides see the same machine state.
                    let again = measure(samples, parameters)
                    best = min(best, again.best)
                    runs += again.runs
                    checksum += again.checksum
                    let ours = Double(samples.count) / best
                    print("VQF C++ \(version) (PyPI vqf, updateBatch), same samples, same run: \(Int(rate)) samples/s")
                    print("mouse3d / VQF C++: \(fixed(ours / rate, 2))×")
                case .unavailable(let why):
                    print("VQF C++ not measured: \(why)")
                }
            }
            let nanosecondsPerSample = best / Double(samples.count) * 1e9
            print(
                "runs: \(runs), best: \(fixed(best * 1000, 2)) ms, \(fixed(nanosecondsPerSample, 1)) ns/sample (checksum \(fixed(checksum, 3)))"
            )
            print("\(Int(Double(samples.count) / best)) samples/s")
        }

        /// The samples measured on, and what they are: --log's, or the built-in scripted motion.
        func input() throws -> (samples: [MotionSample], source: String) {
            guard let log else {
                return (BenchmarkMotion.script().generate().map(\.sample), "built-in scripted motion")
            }
            return (try loadMotionLog(path: log).samples, log)
        }

        func measure(_ samples: [MotionSample], _ parameters: AttitudeEstimatorParameters) -> (
            best: Double, runs: Int, checksum: Double
        ) {
            FusionBenchmark.measure(samples, parameters, seconds: seconds)
        }
    }
}
