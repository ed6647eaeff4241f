import ArgumentParser
import Mouse3DBench
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d simulate`: writes a scripted motion log with exact ground truth.
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a synthetic motion log with ground-truth columns.",
            discussion: """
                demo: the scripted desk gesture; the bundled sample log is \
                `mouse3d simulate --output Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv`.
                hand: a hand holding a controller, drawn from --seed: turns, sustained translation (0.5–5 m/s² \
                over 0.1–0.8 m), taps, 50–200 Hz vibration, a gyroscope bias of up to 1 °/s and noise; the column \
                'movement' marks everything after the first 5 s, as `bench accuracy` counts it.
                rest: a sensor lying still, tilted 20°, with a gyroscope bias of 0.6/-0.5/0.8 °/s and noise (what \
                `bench accuracy` measures drift at rest on), for --seconds.
                """)

        @Option(help: "Which motion: demo, hand or rest.")
        var motion: SimulatedMotion = .demo

        @Option(help: "With --motion hand: the seed that draws it.")
        var seed: UInt64 = 1

        @Option(help: "With --motion hand or rest: its length in seconds.")
        var seconds: Double = 120

        @Option(help: "Where to write the log; standard output if omitted.")
        var output: String?

        @Option(help: "Sample rate in Hz.")
        var rate: Double = 100

        @Option(help: "With --motion hand: bursts of shaking up to this many g (2 to 16).")
        var shake: Double?

        @Option(help: "With --motion hand: the accelerometer saturates at ± this many g per axis (2 to 32).")
        var accelRange: Double?

        @Option(help: "With --motion hand: the gyroscope saturates at ± this many °/s per axis (50 to 4000).")
        var gyroRange: Double?

        func validate() throws {
            guard rate.isFinite, rate >= 1, rate <= 10_000 else {
                throw ValidationError("--rate must be 1 to 10000 Hz.")
            }
            guard seconds.isFinite, seconds >= 10, seconds <= 3600 else {
                throw ValidationError("--seconds must be 10 to 3600.")
            }
            if let shake, !(shake.isFinite && shake >= 2 && shake <= 16) {
                throw ValidationError("--shake must be 2 to 16 g.")
            }
            if let accelRange, !(accelRange.isFinite && accelRange >= 2 && accelRange <= 32) {
                throw ValidationError("--accel-range must be 2 to 32 g.")
            }
            if let gyroRange, !(gyroRange.isFinite && gyroRange >= 50 && gyroRange <= 4000) {
                throw ValidationError("--gyro-range must be 50 to 4000 °/s.")
            }
            if motion != .hand, shake != nil || accelRange != nil || gyroRange != nil {
                throw ValidationError("--shake, --accel-range and --gyro-range apply to --motion hand only.")
            }
        }

        func run() throws {
            let sink: BufferedOutput
            do {
                sink = try output.map { try BufferedOutput(creatingFileAt: $0) } ?? BufferedOutput()
            } catch {
                throw CommandFailure("cannot write the log: \(error)")
            }
            switch motion {
            case .demo:
                try sink.writeLine(MotionLogWriter.header + ",qw,qx,qy,qz")
                for point in SyntheticMotion.demo(sampleRateHertz: rate).generate() {
                    try sink.writeLine(MotionLogWriter.row(point.sample, truth: point.truth))
                }
            case .rest:
                try sink.writeLine(MotionLogWriter.header + ",qw,qx,qy,qz")
                for point in RestDriftBenchmark.motion(seconds: seconds, hertz: rate).generate() {
                    try sink.writeLine(MotionLogWriter.row(point.sample, truth: point.truth))
                }
            case .hand:
                try sink.writeLine(MotionLogWriter.header + ",qw,qx,qy,qz,movement")
                var hand = HandMotion(seconds: seconds, hertz: rate, seed: seed)
                hand.shaking = shake.map { HandMotion.Shaking(peakStandardGravities: $0) }
                hand.accelerometerRangeStandardGravities = accelRange
                hand.gyroscopeRangeDegreesPerSecond = gyroRange
                for point in hand.generate() {
                    let counted = point.sample.timestampNanoseconds >= 5_000_000_000
                    try sink.writeLine(MotionLogWriter.row(point.sample, truth: point.truth) + (counted ? ",1" : ",0"))
                }
            }
            try sink.flush()
        }
    }
}

/// The motions `simulate` can write.
enum SimulatedMotion: String, ExpressibleByArgument, CaseIterable {
    case demo, hand, rest
}
