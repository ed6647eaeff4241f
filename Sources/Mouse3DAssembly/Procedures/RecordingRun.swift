import Mouse3DCore
import Mouse3DLinux

/// `record`: the raw samples of a source into a motion log, flushed batch by batch, with its progress
/// on a terminal, until interrupted or for `duration` seconds.
public enum RecordingRun {
    /// Records `opened` to the log at `output`.
    public static func run(_ opened: OpenedSource, to output: String, duration: Double?, session: Session) throws {
        let (events, diagnostics) = (session.loop, session.diagnostics)
        let follower = opened.source
        let writer: MotionLogRecorder
        do {
            // Gamepads (their table), IIO sensors (their frame) and phones arrive in mouse3d's
            // frame; a device no table knows, in its own axes.
            let inMouse3DFrame = opened.gamepadAxes != nil
            writer = try MotionLogRecorder(path: output, frame: inMouse3DFrame ? MotionLog.mouse3dFrame : nil)
        } catch {
            throw ActionableError("cannot write the log: \(error)")
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
