import Mouse3DCore
import Mouse3DLinux

/// A running receiver on the event loop: datagrams are read as they arrive, what verifies goes to
/// the outputs in batches, silence and refusals are reported, paired senders are followed as they
/// are added and revoked, and figures are printed once a second when asked. Owned by the event
/// loop's thread.
public final class StreamReception: AttitudeEventHandler {
    /// The socket side.
    public let receiver: AttitudeReceiver
    /// The paired senders (sealed receivers only).
    public let pairings: ReceiverPairings?
    /// Where accepted frames go.
    public let outputs: AttitudePipeline
    /// Whether per-sender figures are printed once a second (a reload may change it).
    @exclusivity(unchecked) public var printsStatistics: Bool
    /// Whether send→output latency is recorded (same machine only).
    public let measuresLatency: Bool
    private let diagnostics: Diagnostics
    // Touched only by the loop's thread, never across a call that reaches them again (the loop
    // asks the reception timer's deadline twice a wake-up): no run-time exclusivity checks.
    @exclusivity(unchecked) private var recorder: LatencyRecorder
    @exclusivity(unchecked) private var batchSent: [UInt64] = []
    private var statistics = ReceiveStatistics()
    @exclusivity(unchecked) private var nextStatistics: UInt64
    /// When the socket wakes the loop, and when it is read on a timer instead.
    @exclusivity(unchecked) private var coalescing: WakeUpCoalescing
    /// The loop attached to and the socket's watch there (to pause it); the loop holds this
    /// reception, not the other way round.
    private unowned var loop: EventLoop?
    private var socketWatch: EventLoop.Registration?
    /// The thread's timer slack before reads were coalesced (restored after).
    private var slackBefore: UInt64?
    private static let second: UInt64 = 1_000_000_000

    /// Feeds `outputs` from `receiver`; `coalescing` decides when its socket is read on a timer.
    public init(
        receiver: AttitudeReceiver, pairings: ReceiverPairings?, outputs: AttitudePipeline, printsStatistics: Bool,
        measuresLatency: Bool, latencyWarmUpNanoseconds: UInt64 = 0,
        coalescing: WakeUpCoalescing = WakeUpCoalescing(), diagnostics: Diagnostics
    ) {
        self.coalescing = coalescing
        self.receiver = receiver
        self.pairings = pairings
        self.outputs = outputs
        self.printsStatistics = printsStatistics
        self.measuresLatency = measuresLatency
        recorder = LatencyRecorder(warmUpNanoseconds: latencyWarmUpNanoseconds)
        self.diagnostics = diagnostics
        nextStatistics = MonotonicClock.nanoseconds() + Self.second
    }

    /// Registers the socket, the pairings' folder and the timers with `loop`, which keeps this
    /// reception until it ends. (Held strongly: an `unowned` capture cost each call a check and a
    /// retain and release, three calls a wake-up; nothing here holds the loop.)
    public func attach(to loop: EventLoop) {
        self.loop = loop
        socketWatch = loop.watch(receiver.descriptor) { [self] in try readSocket() }
        if let pairings {
            pairings.attach(to: loop)
            // Sessions stored in the background: the datagrams held for a new one go on.
            loop.watch(pairings.storesCompleted) { [self] in
                if try receiver.sessionsStored(pairings.takeStored(), handler: self) { try endOfBatch() }
            }
        }
        // One timer for the outputs that act between frames (prediction through gaps), silence and
        // refusal reports, and the statistics: the loop asks every timer's deadline twice a wake-up,
        // and each closure call cost 150 to 450 instructions (callgrind) when they were three.
        loop.timer(deadline: { [self] in nextDeadline }) { [self] now in try fire(now: now) }
    }

    /// Reads everything waiting (until the socket would block), then writes it at once. (A bound of
    /// 64 a batch cost a 100,000 datagrams/s flood test its margin: more polls per datagram; it did
    /// not measurably help the 64-sender p99.) Called when the socket wakes the loop, and on the
    /// timer while reads are coalesced.
    private func readSocket() throws {
        let count = try receiver.drain(handler: self)
        try endOfBatch()
        guard let loop, let socketWatch else { return }
        // Waits in whole milliseconds (no epoll_pwait2): a timed read would come 1 ms late.
        let change =
            loop.waitsInNanoseconds
            ? coalescing.read(count, at: MonotonicClock.nanoseconds(), more: count >= AttitudeReceiver.readLimit)
            : coalescing.disable()
        if let change { loop.setPaused(socketWatch, change == .coalesce) }
        // While the rate allows coalescing, a timed read ends when asked (the thread's slack, 50 µs
        // by default, would double the wait); set and restored only as the rate crosses the bound,
        // not at every switch (a burst a millisecond switches twice).
        if coalescing.isRateHigh != slackLowered { adjustTimerSlack(precise: coalescing.isRateHigh) }
    }

    /// Whether the timer slack was lowered (also when the slack before could not be read).
    private var slackLowered = false

    private func adjustTimerSlack(precise: Bool) {
        if precise {
            let slack = TimerSlack.current
            slackBefore = slack > 0 ? slack : nil  // not read: left as it is after
            slackLowered = true
            TimerSlack.set(nanoseconds: 1_000)
        } else {
            if let slackBefore { TimerSlack.set(nanoseconds: slackBefore) }
            slackBefore = nil
            slackLowered = false
        }
    }

    /// Whether the socket is read on a timer now (many datagrams: ``WakeUpCoalescing``).
    public var coalescesReads: Bool { coalescing.isCoalescing }
    /// How many times reads started to be coalesced.
    public var coalescingPeriods: Int { coalescing.coalescingPeriods }

    /// The earliest of the timed read's, the outputs', the receiver's checks' and the statistics'
    /// deadlines.
    private var nextDeadline: UInt64? {
        var deadline = outputs.nextDeadline
        if let read = coalescing.nextRead { deadline = min(deadline ?? read, read) }
        if let idle = coalescing.idleDeadline { deadline = min(deadline ?? idle, idle) }
        if let check = receiver.nextCheckDeadline { deadline = min(deadline ?? check, check) }
        if printsStatistics { deadline = min(deadline ?? nextStatistics, nextStatistics) }
        return deadline
    }

    /// Does what is due by `now`: the outputs' ticks, the receiver's checks, the statistics.
    private func fire(now: UInt64) throws {
        if let due = coalescing.nextRead, due <= now { try readSocket() }
        // Nothing came for two windows after a high rate: the timers' slack as it was.
        if coalescing.idle(at: now) && slackLowered { adjustTimerSlack(precise: false) }
        if let due = outputs.nextDeadline, due <= now {
            try outputs.tick(now: now)
            try outputs.endOfBatch()
        }
        if let due = receiver.nextCheckDeadline, due <= now { try receiver.checkSilence(now: now, handler: self) }
        if printsStatistics && nextStatistics <= now {
            for line in statistics.lines(
                receiver.counters, quality: receiver.quality, now: now,
                intervalNanoseconds: now - (nextStatistics - Self.second))
            {
                diagnostics.say(line)
            }
            nextStatistics += Self.second
            if nextStatistics <= now { nextStatistics = now + Self.second }
        }
    }

    /// Writes what the batch of frames produced, and records their latency.
    private func endOfBatch() throws {
        try outputs.endOfBatch()
        if measuresLatency {
            let done = MonotonicClock.nanoseconds()
            for sent in batchSent { recorder.record(nanoseconds: done &- sent) }
            batchSent.removeAll(keepingCapacity: true)
        }
    }

    /// New, lost, back and dropped streams, said at most 20 at once and one a second after (a sender, or an
    /// attacker re-sending its datagrams, making streams without end cannot flood the log).
    private var streamLines = SourceRateLimiter<Int>(ratePerSecond: 1, burst: 20, capacity: 1)
    private var streamLinesHeld = 0
    private func sayStreamChange(_ line: String) {
        guard streamLines.allow(0, now: MonotonicClock.nanoseconds()) else {
            streamLinesHeld += 1
            return
        }
        let held = streamLinesHeld
        streamLinesHeld = 0
        diagnostics.say(held == 0 ? line : "\(line) (and \(held) stream change\(held == 1 ? "" : "s") not shown)")
    }

    /// Where the receiver's events go (``AttitudeEventHandler``).
    func handle(_ event: AttitudeReceiver.Event) throws {
        switch event {
        case .frame(let update):
            try outputs.write(update)
            if measuresLatency, let sent = update.sentNanoseconds,
                recorder.counts(arrivedAt: update.receivedNanoseconds)
            {
                batchSent.append(sent)
            }
        case .streamStarted(let key): sayStreamChange("\(receiver.describe(key)): new stream")
        case .streamLost(let key):
            sayStreamChange("\(receiver.describe(key)): lost (no frames for 500 ms)")
            if let label = receiver.label(of: key) { outputs.streamEnded(label) }
        case .streamDropped(let key):
            sayStreamChange(
                key.senderKey != 0
                    ? "\(receiver.describe(key)): dropped, to keep at most \(AttitudeReceiver.maximumStreamsPerSender) streams per paired sender"
                    : "\(receiver.describe(key)): dropped, to keep at most \(AttitudeReceiver.maximumUnauthenticatedStreams) unauthenticated streams"
            )
            if let label = receiver.label(of: key) { outputs.streamEnded(label) }
        case .streamResumed(let key): sayStreamChange("\(receiver.describe(key)): back")
        case .refused(let source, let count, let reason, let claimed):
            diagnostics.say(
                pairings?.describeRefusal(source: source, count: count, reason: reason, claimed: claimed)
                    ?? "refused \(count) datagram\(count == 1 ? "" : "s") from \(source): \(reason)")
        case .sessionStarted(let peer): pairings?.sessionStarted(peer)
        case .refusedElsewhere(let sources, let reasons):
            diagnostics.say(
                "refused \(reasons.total) more datagram\(reasons.total == 1 ? "" : "s") from \(sources)\(sources >= 1024 ? "+" : "") "
                    + "other source\(sources == 1 ? "" : "s") in the last 10 s (\(reasons.summary))")
        }
    }

    /// Ends the run: the outputs are finished (devices at rest), epochs stored, and the summary
    /// lines returned (totals, refusals by reason, latency when measured).
    public func finish() -> [String] {
        try? receiver.reportPendingRefusals(handler: self)
        if slackLowered { adjustTimerSlack(precise: false) }  // the thread may go on to other work
        outputs.finish()
        pairings?.saveMarks()
        let t = receiver.totals
        var summary =
            "summary: frames \(t.frames), dropped \(t.dropped), lost \(t.lost), reordered \(t.reordered), senders \(receiver.counters.count)"
        if !receiver.refusals.isEmpty { summary += " (dropped: \(receiver.refusals.summary))" }
        if receiver.streamsDropped > 0 {
            summary +=
                "; \(receiver.streamsDropped) stream\(receiver.streamsDropped == 1 ? "" : "s") pushed out by newer ones (bounds)"
        }
        return [summary] + (measuresLatency ? ["latency send→output: \(recorder.summary)"] : [])
    }
}

/// Per-second rates from cumulative counters.
struct ReceiveStatistics {
    var previous: [SocketAddress: AttitudeReceiver.SenderCounters] = [:]

    mutating func lines(
        _ counters: [SocketAddress: AttitudeReceiver.SenderCounters], quality: [SocketAddress: LinkQualityWindow] = [:],
        now: UInt64 = 0,
        intervalNanoseconds: UInt64
    ) -> [String] {
        defer { previous = counters }
        if counters.isEmpty { return ["stats: no senders yet"] }
        return counters.sorted { $0.key.description < $1.key.description }.map { sender, c in
            let before = previous[sender]?.frames ?? 0
            // counted anew after its counts were retired
            let frames = c.frames >= before ? c.frames - before : c.frames
            let rate = Double(frames) * 1e9 / Double(max(intervalNanoseconds, 1))
            let window =
                quality[sender].map { q -> String in
                    let f = q.figures(now: now)
                    return
                        "; last 10 s: loss \(fixed(f.lossPercent, 2))%, reordered \(f.reordered), jitter \(fixed(f.jitterMilliseconds, 2)) ms"
                } ?? ""
            return
                "stats \(sender): \(Int(rate.rounded())) frames/s, dropped \(c.dropped), lost \(c.lost), reordered \(c.reordered)"
                + window
        }
    }
}
