import ArgumentParser
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
                """)

        @Argument(help: "A folder of motion logs with ground-truth columns.")
        var directory: String

        @OptionGroup var filter: FilterOptions

        func run() throws {
            let parameters = try filter.parameters()
            let names: [String]
            do {
                names = try DirectoryListing.names(in: directory).filter { $0.hasSuffix(".csv") }.sorted()
            } catch {
                throw CommandFailure("cannot list the folder: \(error)")
            }
            var rows: [(String, OrientationErrorMetrics)] = []
            print("trial                                          inclination  heading    total  (degrees, RMS)")
            for name in names {
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                let log: MotionLog
                do {
                    var parser = MotionLogParser(file: path)
                    try FileContents.forEachChunk(path: path) { try parser.consume($0) }
                    log = try parser.finish()
                } catch let error as MotionLogError where error.line == 1 {
                    print("skipped \(name): not a motion log (\(error))")
                    continue
                }
                guard let truth = log.truth else {
                    print("skipped \(name): no ground-truth columns qw,qx,qy,qz")
                    continue
                }
                var estimator = AttitudeEstimator(parameters: parameters)
                var estimates: [Quaternion] = []
                estimates.reserveCapacity(log.samples.count)
                for sample in log.samples {
                    estimator.update(sample)
                    estimates.append(estimator.quaternion)
                }
                let metrics = OrientationErrorMetrics(
                    estimates: estimates, truth: truth, counted: log.movement,
                    sampleRateHertz: sampleRate(log.samples))
                rows.append((name, metrics))
                print(line(String(name.dropLast(4)), metrics.summary))
            }
            guard !rows.isEmpty else {
                throw CommandFailure("no log in \(directory) has ground-truth columns qw,qx,qy,qz")
            }
            let n = Double(rows.count)
            let mean = (
                rows.reduce(0) { $0 + $1.1.inclinationDegrees } / n,
                rows.reduce(0) { $0 + $1.1.headingDegrees } / n,
                rows.reduce(0) { $0 + $1.1.totalDegrees } / n)
            print(line("mean of \(rows.count)", OrientationErrorMetrics.Summary(mean.0, mean.1, mean.2)))
        }

        func line(_ name: String, _ m: OrientationErrorMetrics.Summary) -> String {
            name.rightPadded(to: 46) + " " + fixed(m.inclination, 3, width: 11) + " " + fixed(m.heading, 3, width: 8)
                + " " + fixed(m.total, 3, width: 8)
        }

        /// The median sample rate of a log.
        func sampleRate(_ samples: [MotionSample]) -> Double {
            guard samples.count > 1 else { return 1 }
            var gaps = zip(samples.dropFirst(), samples).map { Double($0.timestampNanoseconds - $1.timestampNanoseconds) }
            gaps.sort()
            let median = gaps[gaps.count / 2]
            return median > 0 ? 1e9 / median : 1
        }
    }
}
