import Mouse3DCore
import Mouse3DLinux

/// The loop of the guided procedures (`calibrate`, `calibrate --axes`): a source's samples fed to
/// `each` (which stops the loop when it is done) until then, the source's end, `timeout` seconds or
/// a signal.
enum SampleFeed {
    /// How the feed ended: a signal (SIGINT, SIGTERM), or the source ended first.
    struct Ending {
        var interrupted: Bool
        var sourceEnded: Bool
    }

    static func run(
        _ source: MotionSampleSource, timeout: Double, session: Session, each: @escaping ([MotionSample]) -> Void
    ) throws -> Ending {
        let events = session.loop
        final class Flag { var set = false }
        let ended = Flag()
        source.start(
            on: events,
            sink: MotionSampleSink(
                samples: each,
                ended: {
                    ended.set = true
                    events.stop()
                }))
        let giveUp = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
        _ = events.timer(deadline: { giveUp }) { _ in events.stop() }
        let ending = try events.run()
        let interrupted = if case .signal = ending { true } else { false }
        return Ending(interrupted: interrupted, sourceEnded: ended.set)
    }
}
