import Mouse3DCore
import Mouse3DLinux

/// The network output of a sending pipeline: every update goes to the receivers through an
/// ``AttitudeStreamer`` at once, or, with a rate, the latest one on each tick (nothing is sent when
/// nothing new was fused). A receiver that is not listening, or a network that goes away, is
/// reported once and does not stop the stream. Owned by the event loop's thread.
public final class StreamerOutput: AttitudeOutput {
    /// The streamer.
    public let streamer: AttitudeStreamer
    /// Nanoseconds between sends, or `nil` for one per update.
    public let sendPeriod: UInt64?
    private var nextSend: UInt64
    private var latest: AttitudeUpdate?
    private let report: (String) -> Void

    /// Sends through `streamer`, once per update or at `rate` Hz.
    public init(streamer: AttitudeStreamer, rate: Double?, report: @escaping (String) -> Void) {
        self.streamer = streamer
        self.report = report
        sendPeriod = rate.map { UInt64(1e9 / $0) }
        nextSend = MonotonicClock.nanoseconds()
    }

    public func write(_ update: AttitudeUpdate) throws {
        if sendPeriod == nil { try send(update) } else { latest = update }
    }

    /// When the next send is due, in rate mode with something new to send.
    public var nextDeadline: UInt64? { sendPeriod != nil && latest != nil ? nextSend : nil }

    public func tick(now: UInt64) throws {
        guard let period = sendPeriod, let update = latest, now >= nextSend else { return }
        try send(update)
        nextSend += period
        if nextSend < now { nextSend = now + period }  // fell behind: do not burst
    }

    /// The final attitude of a log goes out even between ticks.
    public func sourceEnded() throws {
        if let latest { try send(latest) }
    }

    private func send(_ update: AttitudeUpdate) throws {
        latest = nil
        for event in try streamer.send(update.frame, buttons: update.buttons, now: MonotonicClock.nanoseconds()) {
            switch event {
            case .failing(let peer, let reason): report("\(peer): not delivered (\(reason)); still sending")
            case .recovered(let peer): report("\(peer): delivering again")
            }
        }
    }
}
