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
                "Motion source: auto, evdev:/dev/input/eventN, iio:NAME, or replay:LOG.csv (default: send.source, auto)."
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

        /// The loop's state, shared by its handlers.
        final class Progress {
            var calibrator: GyroCalibrator
            var ended = false
            var reportedQuarter = 0
            init(seconds: Double) { calibrator = GyroCalibrator(seconds: seconds) }
        }

        func run() throws {
            let events = try EventLoop(signals: .all)
            let diagnostics = Diagnostics(quiet: quiet)
            let flags = try EffectiveConfiguration.flags {
                try live.addFlags(to: &$0)
                if let source { try $0.set("send.source", .text(source.description), origin: .flag("--source")) }
            }
            var configuration = try EffectiveConfiguration.load(flags: flags)
            let chosen = try MotionSourceOptions.chosenSource(configuration)
            let opened = try chosen.open(.calibrate, configuration: &configuration, diagnostics: diagnostics)
            let (sampleSource, device, axes) = (opened.source, opened.calibrationKey, opened.gamepadAxes)
            if setUpAxes {
                try Self.runAxesSetup(
                    source: sampleSource, device: device, turnedBy: axes, timeout: timeout, events: events,
                    diagnostics: diagnostics)
                return
            }
            let progress = Progress(seconds: seconds)
            diagnostics.say(
                "calibrating \(sampleSource.summary) (\(device)): put it down on a steady surface and leave it still for \(fixed(seconds, 0)) s"
            )
            sampleSource.start(
                on: events,
                sink: MotionSampleSink(
                    samples: { batch in
                        for sample in batch {
                            switch progress.calibrator.add(sample) {
                            case .moved: diagnostics.say("it moved: starting again; leave it still")
                            case .done:
                                events.stop()
                                return
                            case .collecting(let done):
                                let quarter = Int(done * 4)
                                if quarter > progress.reportedQuarter {
                                    progress.reportedQuarter = quarter
                                    if quarter < 4 { diagnostics.say("still for \(fixed(done * seconds, 1)) s") }
                                } else if quarter < progress.reportedQuarter {
                                    progress.reportedQuarter = quarter
                                }
                            }
                        }
                    },
                    ended: {
                        progress.ended = true
                        events.stop()
                    }))
            let giveUp = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
            _ = events.timer(deadline: { giveUp }) { _ in events.stop() }
            let ending = try events.run()
            if case .signal = ending {
                throw CommandFailure("interrupted before it had been still for \(fixed(seconds, 0)) s; nothing stored")
            }
            guard let result = progress.calibrator.result else {
                let moves = progress.calibrator.restarts
                throw CommandFailure(
                    progress.ended
                        ? "the log has no \(fixed(seconds, 0)) s of stillness (it moved \(moves) time\(moves == 1 ? "" : "s")); nothing stored"
                        : "no \(fixed(seconds, 0)) s of stillness in \(fixed(timeout, 0)) s (it moved \(moves) time\(moves == 1 ? "" : "s")); "
                            + "nothing stored: put it down where nothing shakes it and try again")
            }
            // Kept in the driver's axes (the samples were in mouse3d's gamepad frame).
            let measured = GyroCalibration(
                device: device, biasRadiansPerSecond: result.bias, samples: result.samples,
                noiseRadiansPerSecond: result.noise)
            let calibration = axes?.toDriver(measured) ?? measured
            let path = try CalibrationStore.save(calibration)
            print(
                "calibrated \(device): gyroscope bias \(calibration.summary), noise \(fixed(result.noise * 180 / .pi, 3)) °/s, from \(result.samples) samples; stored in \(path)"
            )
        }

        /// The guided `--axes` procedure: says each step, feeds the samples (in the frame the source
        /// turns them into) to ``AxesSetupProcedure``, and stores what it finds composed with that
        /// frame, so the setup turns the device's own axes.
        static func runAxesSetup(
            source: MotionSampleSource, device: String, turnedBy frame: GamepadMotionAxes?, timeout: Double,
            events: EventLoop, diagnostics: Diagnostics
        ) throws {
            final class State {
                var procedure: AxesSetupProcedure
                var ended = false
                var lastSaid = 0.0
                init(device: String) { procedure = AxesSetupProcedure(device: device) }
            }
            let state = State(device: device)
            diagnostics.say("setting up the axes of \(source.summary) (\(device)): three steps, about twenty seconds")
            diagnostics.say(AxesSetupProcedure.prompt(.still))
            source.start(
                on: events,
                sink: MotionSampleSink(
                    samples: { batch in
                        for sample in batch where state.procedure.step != .done {
                            switch state.procedure.add(sample) {
                            case .moved: diagnostics.say("it moved: hold it still")
                            case .next(.done): events.stop()
                            case .next(let step): diagnostics.say(AxesSetupProcedure.prompt(step))
                            case .refused(let why):
                                diagnostics.say("not taken: \(why)")
                                diagnostics.say("again: " + AxesSetupProcedure.prompt(state.procedure.step))
                            case .holding, .waiting, .moving: break
                            }
                        }
                    },
                    ended: {
                        state.ended = true
                        events.stop()
                    }))
            let giveUp = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
            _ = events.timer(deadline: { giveUp }) { _ in events.stop() }
            let ending = try events.run()
            if case .signal = ending { throw CommandFailure("interrupted; nothing stored") }
            guard let found = state.procedure.result else {
                let step = state.procedure.step
                throw CommandFailure(
                    (state.ended ? "the motion ended" : "no setup in \(fixed(timeout, 0)) s")
                        + " at \"\(AxesSetupProcedure.prompt(step))\""
                        + (state.procedure.refusals.last.map { " (last refused: \($0))" } ?? "")
                        + "; nothing stored: run it again (--timeout gives more time)")
            }
            let setup = frame?.composed(with: found) ?? found
            let path = try AxesSetupStore.save(setup)
            print(
                "axes of \(device): \(setup.inWords); its accelerometer reads the \(setup.accelerometerSign > 0 ? "specific force" : "gravity vector"); stored in \(path)"
            )
            diagnostics.say("run, send, record and the DSU server use it from now on; delete the file to go back")
        }
    }
}
