import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d simulate`: writes a scripted motion log with exact ground truth.
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the built-in scripted desk gesture as a motion log with ground-truth columns.",
            discussion: "The bundled sample log is `mouse3d simulate --output Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv`.")

        @Option(help: "Where to write the log; standard output if omitted.")
        var output: String?

        @Option(help: "Sample rate in Hz.")
        var rate: Double = 100

        func validate() throws {
            guard rate.isFinite, rate >= 1, rate <= 10_000 else { throw ValidationError("--rate must be 1 to 10000 Hz.") }
        }

        func run() throws {
            let sink: BufferedOutput
            do {
                sink = try output.map { try BufferedOutput(creatingFileAt: $0) } ?? BufferedOutput()
            } catch {
                throw CommandFailure("cannot write the log: \(error)")
            }
            try sink.writeLine(MotionLogWriter.header + ",qw,qx,qy,qz")
            for point in SyntheticMotion.demo(sampleRateHertz: rate).generate() {
                try sink.writeLine(MotionLogWriter.row(point.sample, truth: point.truth))
            }
            try sink.flush()
        }
    }
}
