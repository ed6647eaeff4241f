import ArgumentParser
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d bench output`: latency from a received frame to the uinput write.
    struct BenchOutput: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "output",
            abstract: "Latency from a received frame to its uinput write (needs /dev/uinput).",
            discussion: """
                Creates the virtual device of MODE and feeds it FRAMES frames at 1 kHz, turning steadily; \
                for each, the time from the frame's arrival (as the receiver stamps it) to the return of \
                the write of its SYN_REPORT is recorded in an HDR histogram.
                """)

        @Option(help: "pointer, joystick or spacemouse.")
        var mode: UinputMode = .pointer

        @Option(help: "How many frames.")
        var frames: Int = 5000

        func validate() throws {
            guard (100...1_000_000).contains(frames) else { throw ValidationError("--frames must be 100 to 1000000.") }
        }

        func run() throws {
            let outputs = UinputOutputs(mode: mode, mapping: PointerMapping(), diagnostics: Diagnostics(quiet: true))
            defer { outputs.releaseAll() }
            let stream = AttitudeReceiver.StreamKey(
                sender: try SocketAddress.resolve("127.0.0.1:1", defaultPort: 1, passive: false), streamID: 1)
            var recorder = LatencyRecorder()
            var next = MonotonicClock.nanoseconds()
            for i in 0..<frames {
                next += 1_000_000
                MonotonicClock.sleep(untilNanoseconds: next)
                let yaw = Float(Double(i % 3600) * 0.1 * .pi / 180) - .pi
                let received = MonotonicClock.nanoseconds()
                try outputs.apply(AttitudeReceiver.ReceivedFrame(
                    stream: stream, sequence: UInt64(i), buttons: [.clutch], frame: AttitudeFrame(roll: 0.1, pitch: 0.2, yaw: yaw),
                    sentNanoseconds: nil, receivedNanoseconds: received))
                if i >= 100 { recorder.record(nanoseconds: MonotonicClock.nanoseconds() - received) }  // after warm-up
            }
            print("frame received → uinput written (\(mode.rawValue)): \(recorder.summary)")
        }
    }
}
