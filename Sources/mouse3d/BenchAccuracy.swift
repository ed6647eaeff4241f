import ArgumentParser
import Mouse3DBench
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d bench accuracy`: BROAD's error metrics for every log with ground truth in a folder.
    struct BenchAccuracy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accuracy",
            abstract: "Score the fusion against ground truth on every log in a folder.",
            discussion: """
                Every *.csv in DIR with columns qw,qx,qy,qz (true orientation, scalar first, sensor to a Z-up \
                frame; nan where unknown) is replayed and scored. A column 'movement' selects the samples that \
                count (1). Errors are in degrees, root mean square: inclination, heading (after removing one \
                constant heading offset) and total (after removing the heading offset of the first second).

                Then, on a synthetic sensor left still for 10 minutes after power-up with a gyroscope bias of \
                about 1 °/s (0.6, -0.5, 0.8 °/s): the drift from minute 1 to minute 10 (°/min) and the time until \
                the bias estimate stays within 0.05 °/s of the truth; for VQF too, on the same samples, if \
                --python can import the PyPI package vqf.
                """)

        @Argument(help: "A folder of motion logs with ground-truth columns; only the rest figures if omitted.")
        var directory: String?

        @Option(help: "Python interpreter to run VQF with (pip install vqf); 'none' skips it.")
        var python = "python3"

        @Option(
            help:
                "Also draw each trial's inclination and heading error over time against the ground truth as PNG (with its CSV) in this folder (needs gnuplot)."
        )
        var plot: String?

        @OptionGroup var filter: FilterOptions

        func run() throws {
            let parameters = try filter.parameters()
            if let plot { try preparePlotFolder(plot) }
            if let directory { try scoreLogs(in: directory, parameters) }
            restFigures(parameters)
        }

        /// Drift at rest and bias convergence after power-up, for mouse3d and, if it can run, VQF.
        func restFigures(_ parameters: AttitudeEstimatorParameters) {
            let points = RestDriftBenchmark.motion().generate()
            let b = RestDriftBenchmark.gyroBiasRadiansPerSecond * (180 / .pi)
            print(
                "rest after power-up (synthetic: \(points.count) samples at 250 Hz, 10 min still, tilted 20°, "
                    + "gyroscope bias \(fixed(b.x, 1))/\(fixed(b.y, 1))/\(fixed(b.z, 1)) °/s, noise 0.1 °/s):")
            func line(_ name: String, _ f: RestDriftBenchmark.Figures) -> String {
                let converged = f.convergenceSeconds.map { fixed($0, 1) + " s" } ?? "never"
                return name.rightPadded(to: 16) + " drift " + fixed(f.driftDegreesPerMinute, 4)
                    + " °/min (minute 1 to 10), "
                    + "bias within 0.05 °/s after " + converged
            }
            print(line("mouse3d", RestDriftBenchmark.run(parameters, points: points)))
            guard python != "none" else { return }
            switch ReferenceFilter.trace(python: python, samples: points.map(\.sample)) {
            case .measured(let rows, let version):
                let figures = RestDriftBenchmark.figures(
                    points: points, attitudes: rows.map(\.0), biases: rows.map(\.1))
                print(line("VQF \(version)", figures))
            case .unavailable(let why):
                print("VQF not run: \(why)")
            }
        }

        func scoreLogs(in directory: String, _ parameters: AttitudeEstimatorParameters) throws {
            let names: [String]
            do {
                names = try DirectoryListing.names(in: directory).filter { $0.hasSuffix(".csv") }.sorted()
            } catch {
                throw CommandFailure("cannot list the folder: \(error)")
            }
            var rows: [(String, OrientationErrorMetrics)] = []
            print("trial                                          inclination  heading    total  (degrees, RMS)")
            let progress = TerminalProgress()  // on a terminal: which log is being fused (quiet when piped)
            for (index, name) in names.enumerated() {
                progress.update("fusing \(index + 1) of \(names.count): \(name)")
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                let log: MotionLog
                do {
                    var parser = MotionLogParser(file: path)
                    try FileContents.forEachChunk(path: path) { try parser.consume($0) }
                    log = try parser.finish()
                } catch let error as MotionLogError where error.line == 1 {
                    progress.finish()
                    print("skipped \(name): not a motion log (\(error))")
                    continue
                }
                guard let metrics = FusionBenchmark.score(log, parameters) else {
                    progress.finish()
                    print("skipped \(name): no ground-truth columns qw,qx,qy,qz")
                    continue
                }
                rows.append((name, metrics))
                progress.finish()
                print(line(String(name.dropLast(4)), metrics.summary))
                if let plot {
                    let t0 = log.samples.first?.timestampNanoseconds ?? 0
                    do {
                        try Plot.draw(
                            directory: plot, name: String(name.dropLast(4)),
                            title:
                                "\(name.dropLast(4)): mouse3d against the ground truth (inclination RMS \(fixed(metrics.inclinationDegrees, 3))°, "
                                + "heading \(fixed(metrics.headingDegrees, 3))°)",
                            x: metrics.sampleIndices.map { Double(log.samples[$0].timestampNanoseconds - t0) / 1e9 },
                            xLabel: "time (s)",
                            yLabel: "error (°)",
                            series: [
                                .init("inclination", metrics.inclinationSeriesDegrees),
                                .init("heading (mean offset removed)", metrics.headingSeriesDegrees)
                            ])
                    } catch {
                        throw CommandFailure("--plot: \(error)")
                    }
                }
            }
            guard !rows.isEmpty else {
                throw CommandFailure("no log in \(directory) has ground-truth columns qw,qx,qy,qz")
            }
            let n = Double(rows.count)
            let mean = (
                rows.reduce(0) { $0 + $1.1.inclinationDegrees } / n,
                rows.reduce(0) { $0 + $1.1.headingDegrees } / n,
                rows.reduce(0) { $0 + $1.1.totalDegrees } / n
            )
            print(line("mean of \(rows.count)", OrientationErrorMetrics.Summary(mean.0, mean.1, mean.2)))
        }

        func line(_ name: String, _ m: OrientationErrorMetrics.Summary) -> String {
            name.rightPadded(to: 46) + " " + fixed(m.inclination, 3, width: 11) + " " + fixed(m.heading, 3, width: 8)
                + " " + fixed(m.total, 3, width: 8)
        }
    }
}

/// Makes the folder `--plot` names (and its parents), or says why it cannot.
func preparePlotFolder(_ path: String) throws {
    do {
        try Plot.checkAvailable()
    } catch {
        throw CommandFailure("--plot: \(error)")
    }
    do {
        try SecretFile.makeDirectory(path)
    } catch {
        throw CommandFailure("--plot: cannot make the folder \(path): \(error)")
    }
}
