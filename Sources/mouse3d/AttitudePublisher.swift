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
    /// Clutch and recenter.
    private(set) var gestures: MotionGestures
    /// Click and recenter bits currently held (the clutch bit comes from `gestures`).
    private var heldButtons: ButtonState = []

    init(
        parameters: AttitudeEstimatorParameters, streamer: AttitudeStreamer, rate: Double?, diagnostics: Diagnostics,
        clutchMode: MotionGestures.ClutchMode? = nil
    ) {
        estimator = AttitudeEstimator(parameters: parameters)
        gestures = MotionGestures(clutchMode: clutchMode)
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

    /// The clutch button went down or up.
    func clutch(pressed: Bool) { gestures.clutch(pressed: pressed) }

    /// Makes the current attitude zero.
    func recenter() { gestures.recenter(at: estimator.attitude) }

    /// Holds or releases `button` (recenter, primary, secondary, middle) in the frames sent.
    func set(_ button: ButtonState, held: Bool) {
        if held { heldButtons.insert(button) } else { heldButtons.remove(button) }
    }

    /// Sends the current attitude now: relative to the recentred zero, with the clutch bit set while
    /// motion is enabled and the held buttons.
    func send() throws {
        unsent = false
        let buttons = heldButtons.union(gestures.motionEnabled ? .clutch : [])
        let frame = AttitudeFrame(gestures.relative(estimator.attitude))
        for event in try streamer.send(frame, buttons: buttons, now: MonotonicClock.nanoseconds()) {
            switch event {
            case .failing(let peer, let reason): diagnostics.say("\(peer): not delivered (\(reason)); still sending")
            case .recovered(let peer): diagnostics.say("\(peer): delivering again")
            }
        }
    }
}
