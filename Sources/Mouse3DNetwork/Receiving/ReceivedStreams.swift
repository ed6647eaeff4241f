import Mouse3DCore
import Mouse3DLinux

/// The streams a receiver hears, apart from how their datagrams got in (``AttitudeReceiver`` keeps
/// the socket, the budgets, the probes, the held datagrams and the refusals): each stream's newest
/// sequence (the latest wins), its label, its silence, and the bounds on how many there are. Owned
/// by the receiver's thread.
final class ReceivedStreams {
    typealias StreamKey = AttitudeReceiver.StreamKey
    typealias Event = AttitudeReceiver.Event
    /// What is accepted (bare frames are numbered here).
    let format: WireFormat
    /// Names paired senders in labels.
    let opener: SealedStreamOpener?
    /// Streams dropped to make room.
    private(set) var dropped: UInt64 = 0
    // The per-frame state below is touched only by the loop's thread, and no access to one field
    // spans a call that reaches the same field: it skips Swift's run-time exclusivity checks (13 a
    // frame, about 3% of a sealed receiver at 50,000 frames/s: `perf`).
    @exclusivity(unchecked) private var tracker = StreamTracker<StreamKey>()
    /// Each live stream's label, made on its first frame (and on its first after a silence).
    @exclusivity(unchecked) private var labels: [StreamKey: StreamLabel] = [:]
    /// The label found last: consecutive datagrams are mostly one stream's (a batch of one sender's).
    /// Unretained: `labels` holds it, and this is forgotten whenever a label leaves `labels`. (Held,
    /// the pair was copied through the runtime's generic tuple copy and the label retained and
    /// released once more for every frame.)
    @exclusivity(unchecked) private var lastLabel: (key: StreamKey, label: Unmanaged<StreamLabel>)?
    @exclusivity(unchecked) private var rawSequence: [SocketAddress: UInt64] = [:]
    private var nextForget: UInt64 = 0
    /// No live stream falls silent before this (nil: none can), while `silenceKnown`: the loop asks
    /// for the next deadline at every wake-up, and a scan of every stream each time was 3% of a
    /// 64-sender receiver (`perf`). A frame only moves its stream's deadline later, so the bound
    /// stays good; it is lowered for a frame whose deadline comes sooner (a first or resumed
    /// stream, a held datagram) and recomputed after each check.
    @exclusivity(unchecked) private var silenceBound: UInt64?
    @exclusivity(unchecked) private var silenceKnown = false

    init(format: WireFormat, opener: SealedStreamOpener?) {
        self.format = format
        self.opener = opener
    }

    /// The label of a live stream as its frames carry it (during ``Event/streamLost(_:)`` too).
    func label(of stream: StreamKey) -> StreamLabel? { labels[stream] }

    /// How messages name a stream: its label's description (with the paired sender's name) while it
    /// has one, during its events too; else its address and id.
    func describe(_ stream: StreamKey) -> String { labels[stream]?.description ?? stream.description }

    /// A verified datagram meets its stream: the newest is output, an older one counted as reordered.
    func meet<H: AttitudeEventHandler>(
        _ verified: VerifiedDatagram, from sender: SocketAddress, now: UInt64, tally: inout SenderTally, _ handler: H
    ) throws {
        let d = verified.datagram
        var sequence = d.sequence
        if format == .raw { sequence = nextRawSequence(from: sender) }
        let key = StreamKey(sender: sender, streamID: d.streamID, senderKey: verified.senderKey)
        // At most one hash for the stream (none when the last datagram was its): its place serves the
        // verdict and the gap (it stays good until a stream is started or removed, which only happens
        // below when it had none).
        let place = tracker.place(of: key)
        let newestBefore = place.map { tracker.newestSequence(at: $0) }
        if place == nil { try makeRoom(for: key, handler) }
        if tally.isFull(without: sender, limit: AttitudeReceiver.maximumCountedSources) {
            tally.retire(keeping: Set(tracker.streams.keys.map(\.sender)))
        }
        let verdict =
            place.map { tracker.receive(at: $0, sequence: sequence, now: now) }
            ?? tracker.start(key, sequence: sequence, now: now)
        switch verdict {
        case .stale:
            tally.reordered(from: sender, now: now)
        case .accept(let isNew, let resumed):
            let silent = now &+ tracker.silenceLimitNanoseconds
            if silenceKnown && silent < (silenceBound ?? .max) { silenceBound = silent }
            let skipped = newestBefore.map { sequence - $0 - 1 } ?? 0
            let sent = format == .raw ? nil : d.sentNanoseconds
            tally.accepted(from: sender, skipped: skipped, sent: sent, now: now)
            // Made before the events, which name the stream by it; the update holds it (taken
            // straight into the update: a local of its own was retained and released once more).
            let update = AttitudeUpdate(
                stream: label(for: key).takeUnretainedValue(), sequence: sequence, buttons: d.buttons, frame: d.frame,
                sentNanoseconds: sent, receivedNanoseconds: now)
            if isNew { try handler.handle(.streamStarted(key)) }
            if resumed { try handler.handle(.streamResumed(key)) }
            try handler.handle(.frame(consume update))
        }
    }

    /// The label of a tracked stream, made on its first frame (with a paired sender's name); valid
    /// while the stream is (`labels` holds it).
    private func label(for key: StreamKey) -> Unmanaged<StreamLabel> {
        if let last = lastLabel, last.key == key { return last.label }
        if let label = labels[key] {
            lastLabel = (key, .passUnretained(label))
            return .passUnretained(label)
        }
        let peer = key.senderKey != 0 ? opener?.name(ofSender: key.senderKey) : nil
        let label =
            StreamLabel(
                sender: key.sender.description, stream: String(key.streamID, radix: 16),
                description: key.description(peer: peer), peer: peer)
        labels[key] = label
        lastLabel = (key, .passUnretained(label))
        return .passUnretained(label)
    }

    /// Bare frames carry no sequence: the receiver numbers them per source address.
    private func nextRawSequence(from sender: SocketAddress) -> UInt64 {
        if rawSequence[sender] == nil && rawSequence.count >= 4096 {
            // Full: the sources without a live stream go (a live sender keeps its numbering).
            let live = Set(tracker.streams.filter { !$0.value.isSilent }.keys.map(\.sender))
            rawSequence = rawSequence.filter { live.contains($0.key) }
            if rawSequence.count >= 4096 { rawSequence.removeAll() }
        }
        let sequence = rawSequence[sender, default: 0]
        rawSequence[sender] = sequence + 1
        return sequence
    }

    /// Before a new stream of `key`'s sender is tracked: if that sender has its most, the least
    /// recently heard of them is dropped (its outputs released if it was live).
    private func makeRoom<H: AttitudeEventHandler>(for key: StreamKey, _ handler: H) throws {
        let limit =
            key.senderKey != 0
            ? AttitudeReceiver.maximumStreamsPerSender : AttitudeReceiver.maximumUnauthenticatedStreams
        var count = 0
        var oldest: (key: StreamKey, heard: UInt64, silent: Bool)?
        for (k, s) in tracker.streams where k.senderKey == key.senderKey {
            count += 1
            if oldest == nil || s.lastHeardNanoseconds < oldest!.heard {
                oldest = (k, s.lastHeardNanoseconds, s.isSilent)
            }
        }
        guard count >= limit, let oldest else { return }
        tracker.remove(oldest.key)
        dropped += 1
        if !oldest.silent { try handler.handle(.streamDropped(oldest.key)) }  // a silent one was reported lost already
        labels[oldest.key] = nil
        lastLabel = nil
    }

    /// Reports streams that have been silent for 500 ms as of `now`; forgets streams silent for ten
    /// minutes (checked at most once a second).
    func checkSilence<H: AttitudeEventHandler>(now: UInt64, _ handler: H) throws {
        silenceKnown = false
        for key in tracker.checkSilence(now: now) {
            try handler.handle(.streamLost(key))
            // Made anew if it comes back: a paired sender's address may have changed meanwhile.
            labels[key] = nil
            lastLabel = nil
        }
        if now >= nextForget {
            tracker.forget(silentLongerThan: 600_000_000_000, now: now)
            nextForget = now + 1_000_000_000
        }
    }

    /// When ``checkSilence(now:_:)`` is next due for the streams: just after one would fall silent,
    /// or, while streams are known, at the next once-a-second look for long-silent ones to forget.
    var nextCheckDeadline: UInt64? {
        if !silenceKnown {
            silenceBound = tracker.nextSilenceDeadline()
            silenceKnown = true
        }
        var deadline = silenceBound.map { $0 + 1 }
        if !tracker.streams.isEmpty { deadline = min(deadline ?? nextForget, nextForget) }
        return deadline
    }
}
