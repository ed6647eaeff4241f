import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d record`: raw samples from a live sensor into a motion log.
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record raw samples from a motion sensor into a log that replay and send can read.",
            discussion: """
                The log has the columns t,gx,gy,gz,ax,ay,az (seconds from the first sample, rad/s, m/s²). \
                It is flushed after every batch of samples, so a recording ended by SIGINT, SIGTERM or a \
                crash keeps everything up to that point.
                """)

        @Option(help: "Motion source: auto, evdev:/dev/input/eventN, iio:NAME (or iio:ACCEL+GYRO).")
        var source = SourceSpecifier(LiveSourceKind(.automatic))

        @Option(help: "Where to write the log (CSV).")
        var output: String

        @Option(help: "Stop after this many seconds (default: until interrupted).")
        var duration: Double?

        @OptionGroup var live: LiveSourceOptions

        func validate() throws {
            if let refusal = source.kind.recordRefusal { throw ValidationError(refusal) }
            if let duration, !(duration.isFinite && duration > 0) {
                throw ValidationError("--duration must be a positive number of seconds.")
            }
        }

        func run() throws {
            let events = try EventLoop(signals: .stop)
            let diagnostics = Diagnostics(quiet: false)
            let flags = try EffectiveConfiguration.flags { try live.addFlags(to: &$0) }
            var configuration = try EffectiveConfiguration.load(flags: flags)
            let opened = try source.kind.open(.record, configuration: &configuration, diagnostics: diagnostics)
            let follower = opened.source
            let writer: MotionLogRecorder
            do {
                // Gamepads (their table), IIO sensors (their frame) and phones arrive in mouse3d's
                // frame; a device no table knows, in its own axes.
                let inMouse3DFrame = opened.gamepadAxes != nil
                writer = try MotionLogRecorder(path: output, frame: inMouse3DFrame ? MotionLog.mouse3dFrame : nil)
            } catch {
                throw CommandFailure("cannot write the log: \(error)")
            }
            diagnostics.say("recording \(follower.summary) to \(output)")
            follower.start(on: events, sink: MotionSampleSink(samples: writer.write))
            // On a terminal: how far it is (quiet when standard error is piped or logged).
            let progress = TerminalProgress()
            let started = MonotonicClock.nanoseconds()
            var nextUpdate = started
            _ = events.timer(deadline: { nextUpdate }) { now in
                let elapsed = Double(now - started) * 1e-9
                progress.update(
                    "recording: \(fixed(elapsed, 1)) s"
                        + (duration.map { " of \(fixed($0, 0)) s" } ?? " (Ctrl-C stops)")
                        + ", \(writer.count) samples", now: now)
                nextUpdate = now + 200_000_000
            }
            defer { progress.finish() }
            let ending: EventLoop.Ending?
            if let duration {
                ending = try events.run(until: MonotonicClock.nanoseconds() + UInt64(duration * 1e9))
            } else {
                ending = try events.run()
            }
            progress.finish()
            if let ending { diagnostics.say("stopping on \(ending.name)") }
            try writer.flush()
            diagnostics.say("recorded \(writer.count) samples to \(output)")
            for line in follower.closingSummary { diagnostics.say(line) }
        }
    }
}
