import ArgumentParser
import Mouse3DCore

/// The `mouse3d` command: a motion sensor as a 3D mouse.
@main
struct Mouse3D: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mouse3d",
        abstract: "Turn a motion sensor into a 3D mouse: fuse gyroscope and accelerometer into an attitude, "
            + "stream it, and drive virtual input devices.",
        version: "0.1.0",
        subcommands: [
            Run.self, Send.self, Receive.self, Pair.self, Peers.self, Calibrate.self, Config.self, Doctor.self,
            List.self, Record.self, Replay.self, Simulate.self, Bench.self
        ])
}

/// A failure the user can act on (printed as one line, exit status 1, no stack trace).
typealias CommandFailure = ActionableError
