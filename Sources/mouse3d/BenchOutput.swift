import ArgumentParser
import Mouse3DBench
import Mouse3DCore
import Mouse3DLinux

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

        @Option(help: "pointer, joystick, spacemouse or gamepad.")
        var mode: UinputMode = .pointer

        @Option(help: "How many frames.")
        var frames: Int = 5000

        func validate() throws {
            guard (100...1_000_000).contains(frames) else { throw ValidationError("--frames must be 100 to 1000000.") }
        }

        func run() throws {
            print(
                "frame received → uinput written (\(mode.rawValue)): \(try OutputBenchmark.run(mode: mode, frames: frames))"
            )
        }
    }
}
