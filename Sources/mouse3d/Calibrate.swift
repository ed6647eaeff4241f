import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d calibrate`: measures the gyroscope's bias at rest and keeps it for `send` and `run`.
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure the gyroscope's bias while the controller lies still, and keep it for send and run.",
            discussion: """
                Put the controller (or sensor) down on a steady surface and leave it: once it has been still \
                for --seconds, the mean angular velocity is its bias. If it moves, measuring starts over. The \
                result is stored per device (vendor:product and unique id for a gamepad, name and sysfs path \
                for IIO) in $XDG_DATA_HOME/mouse3d/calibration (~/.local/share/mouse3d/calibration), and \
                `send` and `run` start from it; their bias estimate keeps learning at rest and in motion. \
                A replayed log is calibrated under its path.

                With --axes it sets up the device's axes instead, for a device no table knows or one held \
                differently: hold it still as you will use it, turn it to the left, tilt the far edge up. The \
                rotation found (shown in words) is stored beside the bias as NAME.axes and used by send, run, \
                record and the DSU server in place of the driver table, mount matrices and hold; delete the file to \
                go back. A motion too small, not about one axis, or in disagreement is refused with what to do, \
                and asked for again.
                """)

        @Option(
            help:
                "Motion source: \(SourceCatalog.help()) (default: send.source, auto)."
        )
        var source: SourceSpecifier?

        @Option(help: "How long it must stay still, in seconds.")
        var seconds: Double = 5

        @Option(help: "Give up after this many seconds.")
        var timeout: Double = 60

        @OptionGroup var live: LiveSourceOptions

        @Flag(
            name: .customLong("axes"),
            help:
                "Set up the device's axes instead: hold it still, turn it left, tilt the far edge up (about twenty seconds); stored per device beside the bias."
        )
        var setUpAxes = false

        @Flag(help: "Print nothing on standard error but errors.")
        var quiet = false

        func validate() throws {
            guard seconds.isFinite, seconds >= 1, seconds <= 600 else {
                throw ValidationError("--seconds must be 1 to 600.")
            }
            guard timeout.isFinite, timeout >= seconds, timeout <= 3600 else {
                throw ValidationError("--timeout must be at least --seconds and at most 3600.")
            }
        }

        func run() throws {
            let session = try Session(signals: .all, quiet: quiet)
            let flags = try EffectiveConfiguration.flags {
                try live.addFlags(to: &$0)
                if let source { try $0.set(.sendSource, source.description, origin: .flag("--source")) }
            }
            var configuration = try EffectiveConfiguration.load(flags: flags)
            let chosen = try SourceCatalog.chosen(configuration)
            let opened = try chosen.open(.calibrate, configuration: &configuration, diagnostics: session.diagnostics)
            if setUpAxes {
                print(try AxesSetupRun.run(opened, timeout: timeout, session: session))
                session.diagnostics.say(
                    "run, send, record and the DSU server use it from now on; delete the file to go back")
            } else {
                print(try GyroCalibrationRun.run(opened, seconds: seconds, timeout: timeout, session: session))
            }
        }
    }
}
