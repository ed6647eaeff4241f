import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// Fuses samples and sends attitudes: one datagram per fused sample, or with a rate the latest
/// attitude on each tick. Shared by `send`'s replay and live paths. Owned by one thread.
final class AttitudePublisher {
    private var estimator: AttitudeEstimator
    private let streamer: AttitudeStreamer
    private let diagnostics: Diagnostics
    /// Nanoseconds between sends, or `nil` for one per sample.
    let sendPeriod: UInt64?
    /// The next send time, in --rate mode.
    private(set) var nextSend: UInt64
    /// Fused since the last send, in --rate mode.
    private(set) var unsent = false

    init(parameters: AttitudeEstimatorParameters, streamer: AttitudeStreamer, rate: Double?, diagnostics: Diagnostics) {
        estimator = AttitudeEstimator(parameters: parameters)
        self.streamer = streamer
        self.diagnostics = diagnostics
        sendPeriod = rate.map { UInt64(1e9 / $0) }
        nextSend = MonotonicClock.nanoseconds()
    }

    /// Fuses `sample`; sends at once unless a rate is set.
    func fuse(_ sample: MotionSample) throws {
        estimator.update(sample)
        if sendPeriod == nil { try send() } else { unsent = true }
    }

    /// In --rate mode: sends if a tick is due and something new was fused.
    func tick(now: UInt64) throws {
        guard let period = sendPeriod, unsent, now >= nextSend else { return }
        try send()
        nextSend += period
        if nextSend < now { nextSend = now + period }  // fell behind: do not burst
    }

    /// When the next send is due, if one is waiting.
    var nextDeadline: UInt64? { sendPeriod != nil && unsent ? nextSend : nil }

    /// Sends the current attitude now.
    func send() throws {
        unsent = false
        for event in try streamer.send(AttitudeFrame(estimator.attitude), buttons: [.clutch], now: MonotonicClock.nanoseconds()) {
            switch event {
            case .failing(let peer, let reason): diagnostics.say("\(peer): not delivered (\(reason)); still sending")
            case .recovered(let peer): diagnostics.say("\(peer): delivering again")
            }
        }
    }
}
