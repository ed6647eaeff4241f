import Mouse3DCore
import Mouse3DLinux

/// The network output of a sending pipeline: every update goes to the receivers through an
/// ``AttitudeStreamer`` (behind a ``PacedOutput`` for `--rate`). A receiver that is not listening,
/// or a network that goes away, is reported once and does not stop the stream. Owned by the event
/// loop's thread.
public final class StreamerOutput: AttitudeSink {
    /// The streamer.
    public let streamer: AttitudeStreamer
    private let report: (String) -> Void

    /// Sends through `streamer`, one datagram per update.
    public init(streamer: AttitudeStreamer, report: @escaping (String) -> Void) {
        self.streamer = streamer
        self.report = report
    }

    public func write(_ update: AttitudeUpdate) throws {
        for event in try streamer.send(update.frame, buttons: update.buttons, now: MonotonicClock.nanoseconds()) {
            switch event {
            case .failing(let peer, let reason): report("\(peer): not delivered (\(reason)); still sending")
            case .recovered(let peer): report("\(peer): delivering again")
            }
        }
    }
}
