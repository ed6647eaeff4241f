import Mouse3DCore
import Mouse3DLinux
import SystemPackage

/// Receives attitude datagrams (or raw frames) on one UDP socket, keeps senders apart, drops what is
/// not a valid frame or is older than the newest of its stream, and notices silence.
/// Owned by one thread.
public final class AttitudeReceiver {
    /// A stream: who sent it and its id (0 for raw frames, which carry none).
    public struct StreamKey: Hashable, Sendable, CustomStringConvertible {
        /// Creates a key.
        public init(sender: SocketAddress, streamID: UInt32, peerName: String? = nil, senderKey: UInt64 = 0) {
            self.sender = sender
            self.streamID = streamID
            self.peerName = peerName
            self.senderKey = senderKey
        }

        /// The sender's address (for a paired sender, the one its stream was first heard from).
        public var sender: SocketAddress
        /// The stream id the sender chose.
        public var streamID: UInt32
        /// The paired sender's name (sealed streams only).
        public var peerName: String?
        /// The paired sender's id (sealed streams only; 0 otherwise). Part of the key: two paired
        /// senders sending from one address with one stream id (one spoofing the other's source)
        /// are two streams, and neither can make the other's frames stale.
        public var senderKey: UInt64
        /// Equal when stream id and sender are, and for an unauthenticated stream its address too.
        /// A paired sender's stream is its own whatever address a datagram comes from (both are
        /// authenticated; the address is not): a late or captured datagram re-sent from another
        /// address meets the stream's "newest wins" and is stale, instead of starting a stream of
        /// its own (a click injected, the live stream pushed out); a sender whose address changes
        /// keeps its stream. The name follows from the sender; not hashed per frame.
        public static func == (a: StreamKey, b: StreamKey) -> Bool {
            a.streamID == b.streamID && a.senderKey == b.senderKey && (a.senderKey != 0 || a.sender == b.sender)
        }
        public func hash(into hasher: inout Hasher) {
            if senderKey == 0 { hasher.combine(sender) }
            hasher.combine(streamID)
            hasher.combine(senderKey)
        }
        public var description: String {
            let who = peerName.map { "'\($0)' (\(sender))" } ?? "\(sender)"
            return streamID == 0 ? who : "\(who) stream \(String(streamID, radix: 16))"
        }
    }

    /// A frame accepted for output.
    public struct ReceivedFrame: Sendable {
        /// Its stream.
        public var stream: StreamKey
        /// Its sequence number (for raw frames, the receiver's own count).
        public var sequence: UInt64
        /// The sender's buttons (for raw frames: the clutch only, as their motion always counts).
        public var buttons: ButtonState
        /// The attitude.
        public var frame: AttitudeFrame
        /// The sender's clock at sending (nil for raw frames).
        public var sentNanoseconds: UInt64?
        /// The receiver's monotonic clock when it was read from the socket.
        public var receivedNanoseconds: UInt64

        /// Creates a frame record (the receiver makes these; benchmarks and tests may too).
        public init(stream: StreamKey, sequence: UInt64, buttons: ButtonState, frame: AttitudeFrame, sentNanoseconds: UInt64?, receivedNanoseconds: UInt64) {
            self.stream = stream
            self.sequence = sequence
            self.buttons = buttons
            self.frame = frame
            self.sentNanoseconds = sentNanoseconds
            self.receivedNanoseconds = receivedNanoseconds
        }
    }

    /// Something the user may want to hear about.
    public enum Event: Sendable {
        /// A valid, newest frame.
        case frame(ReceivedFrame)
        /// A new stream started.
        case streamStarted(StreamKey)
        /// A stream fell silent (no frames for 500 ms).
        case streamLost(StreamKey)
        /// A silent stream is back.
        case streamResumed(StreamKey)
        /// A stream was forgotten to make room for a new one of the same sender (or, unauthenticated,
        /// of anyone): the least recently heard, beyond ``maximumStreamsPerSender``.
        case streamDropped(StreamKey)
        /// Datagrams from `source` were refused (reported on the first and then at most every ten
        /// seconds per source): `count` since the last report, the latest `reason`, and the paired
        /// sender's id the datagram claimed, if any.
        case refused(source: SocketAddress, count: UInt64, reason: Refusal, claimedSender: [UInt8]?)
        /// A paired sender started a new epoch (it restarted): worth storing.
        case sessionStarted(PairedPeer)
        /// Datagrams refused in the last interval from sources beyond those reported one by one (a
        /// flood from many addresses is summed here, so the log stays short): how many sources
        /// (at least), how many datagrams, and why.
        case refusedElsewhere(sources: Int, reasons: RefusalCounts)
    }

    /// Counts per sender address, since the receiver started (senders that had a frame accepted;
    /// what other sources cost is only in the totals, so a flood from many addresses takes no memory).
    public struct SenderCounters: Sendable, Equatable {
        /// Counters starting from these values.
        public init(frames: UInt64 = 0, dropped: UInt64 = 0, lost: UInt64 = 0, reordered: UInt64 = 0) {
            self.frames = frames
            self.dropped = dropped
            self.lost = lost
            self.reordered = reordered
        }

        /// Frames accepted.
        public var frames: UInt64 = 0
        /// Datagrams refused as invalid (size, magic, version, kind, angles).
        public var dropped: UInt64 = 0
        /// Frames skipped in sequence.
        public var lost: UInt64 = 0
        /// Frames that came after a newer one.
        public var reordered: UInt64 = 0
    }

    /// The socket's address.
    public let localAddress: SocketAddress
    /// The socket's descriptor, for the event loop.
    public var descriptor: FileDescriptor { socket.descriptor }
    /// What is accepted.
    public let format: WireFormat
    /// Counts per sender address.
    public private(set) var counters: [SocketAddress: SenderCounters] = [:]
    /// Per sender that got a frame accepted: loss, reordering and jitter over the last 10 s.
    public private(set) var quality: [SocketAddress: LinkQualityWindow] = [:]
    /// Why datagrams were dropped, by reason.
    public private(set) var refusals = RefusalCounts()
    /// Link probes from paired senders answered.
    public private(set) var probesAnswered: UInt64 = 0
    private var tracker = StreamTracker<StreamKey>()
    private var rawSequence: [SocketAddress: UInt64] = [:]
    private var nextForget: UInt64 = 0
    private let socket: UDPSocket
    private var buffer = [UInt8](repeating: 0, count: 2048)
    /// Opens sealed datagrams (format `.sealed` only).
    public let opener: SealedStreamOpener?
    /// Refusals each source may cause before its datagrams are dropped unread: 200 a second after a
    /// burst of 1000, so a flood costs one table lookup per datagram and cannot crowd out a paired
    /// stream's processing.
    private var refusalBudget = SourceRateLimiter<SocketAddress>(ratePerSecond: 200, burst: 1000)
    private var refusalReports: [SocketAddress: (count: UInt64, next: UInt64)] = [:]
    /// Datagrams dropped from sources that never had a frame accepted.
    private var unattributedDrops: UInt64 = 0
    /// Counts of sources no longer counted one by one (see ``maximumCountedSources``).
    private var retired = SenderCounters()

    /// Streams one paired sender may have at once (its stream id and source address are its to
    /// choose, and an on-path attacker can re-send its datagrams from other addresses): each is
    /// memory and, with --uinput, a virtual device. Beyond, the least recently heard is dropped.
    public static let maximumStreamsPerSender = 4
    /// Streams of unauthenticated senders (--raw, --insecure), all together (64 senders).
    public static let maximumUnauthenticatedStreams = 64
    /// Source addresses counted one by one; beyond, those without a stream are summed together.
    public static let maximumCountedSources = 256
    /// Streams dropped to make room.
    public private(set) var streamsDropped: UInt64 = 0

    /// Binds to `address`. `.sealed` needs an `opener`.
    public init(listeningOn address: SocketAddress, format: WireFormat, opener: SealedStreamOpener? = nil) throws(SystemCallError) {
        precondition((format == .sealed) == (opener != nil), "a sealed receiver needs an opener, and only it")
        socket = try UDPSocket(family: address.family)
        try socket.bind(to: address)
        try? socket.setReceiveBufferSize(4 << 20)
        localAddress = try socket.localAddress()
        self.format = format
        self.opener = opener
    }

    /// Totals over every sender.
    public var totals: SenderCounters {
        var start = retired
        start.dropped += unattributedDrops
        return counters.values.reduce(into: start) { t, c in
            t.frames &+= c.frames
            t.dropped &+= c.dropped
            t.lost &+= c.lost
            t.reordered &+= c.reordered
        }
    }

    /// Reads every datagram waiting (at most `limit`), calling `handle` for each event in order.
    /// Returns how many datagrams were read.
    @discardableResult
    public func drain(limit: Int = 4096, _ handle: (Event) throws -> Void) throws -> Int {
        var count = 0
        while count < limit {
            let received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
            guard let (length, sender) = received else { break }
            count += 1
            let now = MonotonicClock.nanoseconds()
            // A datagram that claims to be a paired sender's is checked by its tag whatever its
            // source sent before (junk spoofed from the sender's own address cannot get its frames
            // dropped); only the rest is subject to the per-source budget.
            let claimsPairedSender = length == SealedDatagramLayout.byteCount
                && buffer.withUnsafeBytes { opener?.claimsPairedSender($0) ?? false }
            guard claimsPairedSender || refusalBudget.wouldAllow(sender, now: now) else {
                // A source that keeps sending what is refused: dropped unread.
                countDrop(from: sender)
                refusals.add(.rateLimited)
                try noteRefusal(from: sender, reason: .rateLimited, claimed: nil, now: now, handle)
                continue
            }
            let bytes = min(length, buffer.count)
            if format == .sealed && length == LinkProbe.byteCount && buffer[3] == LinkProbe.requestKind {
                // A paired sender timing the link: answered (once per budget token, so a replayed
                // or forged probe cannot make this a reflector), never counted as a frame.
                _ = refusalBudget.allow(sender, now: now)
                let reply = buffer.withUnsafeBytes { opener?.answerProbe(UnsafeRawBufferPointer(rebasing: $0[0..<bytes])) }
                if let reply {
                    probesAnswered += 1
                    _ = try reply.withUnsafeBytes { try socket.send($0, to: sender) }
                } else {
                    countDrop(from: sender)
                    refusals.add(.badLinkProbe)
                    try noteRefusal(from: sender, reason: .badLinkProbe, claimed: nil, now: now, handle)
                }
                continue
            }
            try buffer.withUnsafeBytes { raw in
                try deliver(UnsafeRawBufferPointer(rebasing: raw[0..<bytes]), length: length, from: sender, now: now, handle)
            }
        }
        return count
    }

    /// Datagrams held for sessions being stored, with their source and arrival time (bounded).
    private var held: [(bytes: [UInt8], sender: SocketAddress, received: UInt64)] = []
    /// Most datagrams held at once (about 64 ms of 64 senders at 1 kHz); beyond, refused as not stored.
    public static let maximumHeld = 4096
    /// Most held for one claimed sender (a second of a 1 kHz stream waiting for its store), so that
    /// an attacker replaying one sender's captured datagrams cannot crowd out the others' first ones.
    public static let maximumHeldPerSender = 1024
    /// The held datagrams themselves: a copy of one (a replay, or the network's duplicate) is refused
    /// as replayed instead of being held twice (the epoch's replay window does not exist yet).
    private var heldCopies: Set<[UInt8]> = []
    /// How many are held per claimed sender id.
    private var heldPerSender: [[UInt8]: Int] = [:]

    /// Offers the held datagrams again (a session's state was stored, or could not be): those of
    /// an adopted session are delivered, in order, as if they had just arrived (their latency counts
    /// the wait); the others are held again or refused.
    public func releaseHeld(_ handle: (Event) throws -> Void) throws {
        let waiting = held
        held.removeAll(keepingCapacity: true)
        heldCopies.removeAll(keepingCapacity: true)
        heldPerSender.removeAll(keepingCapacity: true)
        for item in waiting {
            try item.bytes.withUnsafeBytes { try deliver($0, length: item.bytes.count, from: item.sender, now: item.received, handle) }
        }
    }

    /// Decodes one datagram and hands on its frame (or counts its refusal).
    private func deliver(_ bytes: UnsafeRawBufferPointer, length: Int, from sender: SocketAddress, now: UInt64, _ handle: (Event) throws -> Void) throws {
        switch decode(bytes, length: length, from: sender) {
        case .failure(.awaitingStorage):
            // The first datagrams of a new session, authentic: held until its state is stored.
            let copy = Array(bytes), claimed = opener?.claimedSenderID(bytes) ?? []
            if heldCopies.contains(copy) {
                countDrop(from: sender)
                refusals.add(.replayed)
            } else if held.count < Self.maximumHeld && heldPerSender[claimed, default: 0] < Self.maximumHeldPerSender {
                held.append((copy, sender, now))
                heldCopies.insert(copy)
                heldPerSender[claimed, default: 0] += 1
            } else {
                countDrop(from: sender)
                refusals.add(.notStored)
            }
        case .failure(let reason):
            countDrop(from: sender)
            refusals.add(reason)
            _ = refusalBudget.allow(sender, now: now)
            if let opener {
                let claimed = opener.claimedSenderID(bytes)
                try noteRefusal(from: sender, reason: reason, claimed: reason == .unknownSender ? claimed : nil, now: now, handle)
            }
        case .success(let d):
            if let peer = d.startedEpoch { try handle(.sessionStarted(peer)) }
            let streamID = d.streamID
            var sequence = d.sequence
            if format == .raw {
                if rawSequence[sender] == nil && rawSequence.count >= 4096 {
                    // Full: the sources without a live stream go (a live sender keeps its numbering).
                    let live = Set(tracker.streams.filter { !$0.value.isSilent }.keys.map(\.sender))
                    rawSequence = rawSequence.filter { live.contains($0.key) }
                    if rawSequence.count >= 4096 { rawSequence.removeAll() }
                }
                sequence = rawSequence[sender, default: 0]
                rawSequence[sender] = sequence + 1
            }
            let key = StreamKey(sender: sender, streamID: streamID, peerName: d.peerName, senderKey: d.senderKey)
            let before = tracker.streams[key]
            if before == nil { try makeRoom(for: key, handle) }
            if counters[sender] == nil && counters.count >= Self.maximumCountedSources { retireCounters() }
            switch tracker.receive(key, sequence: sequence, now: now) {
            case .stale:
                counters[sender, default: SenderCounters()].reordered += 1
                quality[sender, default: LinkQualityWindow()].reordered(now: now)
            case .accept(let isNew, let resumed):
                let skipped = before.map { sequence - $0.newestSequence - 1 } ?? 0
                counters[sender, default: SenderCounters()].lost &+= skipped  // a sender may skip 2^64 - 2
                counters[sender, default: SenderCounters()].frames &+= 1
                quality[sender, default: LinkQualityWindow()].accepted(
                    now: now, lostBefore: skipped, sent: format == .raw ? nil : d.sentNanoseconds)
                if isNew { try handle(.streamStarted(key)) }
                if resumed { try handle(.streamResumed(key)) }
                try handle(.frame(ReceivedFrame(
                    stream: key, sequence: sequence, buttons: d.buttons, frame: d.frame,
                    sentNanoseconds: d.sentNanoseconds, receivedNanoseconds: now)))
            }
        }
    }

    /// Before a new stream of `key`'s sender is tracked: if that sender has its most, the least
    /// recently heard of them is dropped (its outputs released if it was live).
    private func makeRoom(for key: StreamKey, _ handle: (Event) throws -> Void) throws {
        let limit = key.senderKey != 0 ? Self.maximumStreamsPerSender : Self.maximumUnauthenticatedStreams
        var count = 0
        var oldest: (key: StreamKey, heard: UInt64, silent: Bool)?
        for (k, s) in tracker.streams where k.senderKey == key.senderKey {
            count += 1
            if oldest == nil || s.lastHeardNanoseconds < oldest!.heard { oldest = (k, s.lastHeardNanoseconds, s.isSilent) }
        }
        guard count >= limit, let oldest else { return }
        tracker.remove(oldest.key)
        streamsDropped += 1
        if !oldest.silent { try handle(.streamDropped(oldest.key)) }  // a silent one was reported lost already
    }

    /// Sums the counts of sources that have no stream any more into one, so that the table of
    /// sources stays bounded however many addresses a sender's datagrams came from.
    private func retireCounters() {
        let live = Set(tracker.streams.keys.map(\.sender))
        for (source, c) in counters where !live.contains(source) {
            retired.frames &+= c.frames
            retired.dropped &+= c.dropped
            retired.lost &+= c.lost
            retired.reordered &+= c.reordered
            counters[source] = nil
            quality[source] = nil
        }
    }

    /// Reports streams that have been silent for 500 ms as of `now`, and the refusals summed over
    /// the last interval; forgets streams silent for ten minutes (checked at most once a second).
    public func checkSilence(now: UInt64, _ handle: (Event) throws -> Void) throws {
        for key in tracker.checkSilence(now: now) { try handle(.streamLost(key)) }
        if now >= nextForget {
            tracker.forget(silentLongerThan: 600_000_000_000, now: now)
            nextForget = now + 1_000_000_000
        }
        if now >= reportInterval.end { try endReportInterval(now: now, handle) }
    }

    /// When ``checkSilence(now:_:)`` is next due: just after a stream would fall silent, at the end
    /// of a reporting interval with refusals to sum, or, while streams are known, at the next
    /// once-a-second look for long-silent ones to forget.
    public var nextCheckDeadline: UInt64? {
        var deadline = tracker.nextSilenceDeadline().map { $0 + 1 }
        if !tracker.streams.isEmpty { deadline = min(deadline ?? nextForget, nextForget) }
        if !reportInterval.others.isEmpty { deadline = min(deadline ?? reportInterval.end, reportInterval.end) }
        return deadline
    }

    /// How refusals are reported: the first from each of a few sources at once, then a count every
    /// ten seconds per such source; the rest summed once per interval.
    static let reportInterval: UInt64 = 10_000_000_000
    /// Sources reported one by one per interval, and at most tracked.
    static let sourcesReportedPerInterval = 8, sourcesTracked = 64

    private struct ReportInterval {
        var end: UInt64 = 0
        var newSources = 0
        var others = RefusalCounts()
        var otherSources: Set<SocketAddress> = []
    }
    private var reportInterval = ReportInterval()

    private func countDrop(from source: SocketAddress) {
        if counters[source] != nil { counters[source]!.dropped += 1 } else { unattributedDrops += 1 }
    }

    /// Reports a refusal from `source` (bounded: see ``sourcesReportedPerInterval``).
    private func noteRefusal(from source: SocketAddress, reason: Refusal, claimed: [UInt8]?, now: UInt64, _ handle: (Event) throws -> Void) throws {
        if now >= reportInterval.end { try endReportInterval(now: now, handle) }
        if var report = refusalReports[source] {
            report.count += 1
            if now >= report.next {
                try handle(.refused(source: source, count: report.count, reason: reason, claimedSender: claimed))
                report = (0, now + Self.reportInterval)
            }
            refusalReports[source] = report
        } else if refusalReports.count < Self.sourcesTracked && reportInterval.newSources < Self.sourcesReportedPerInterval {
            reportInterval.newSources += 1
            try handle(.refused(source: source, count: 1, reason: reason, claimedSender: claimed))
            refusalReports[source] = (0, now + Self.reportInterval)
        } else {
            reportInterval.others.add(reason)
            if reportInterval.otherSources.count < 1024 { reportInterval.otherSources.insert(source) }
        }
    }

    /// Reports the refusals summed so far (at the end of a run: nothing goes unsaid).
    public func reportPendingRefusals(_ handle: (Event) throws -> Void) rethrows {
        if !reportInterval.others.isEmpty {
            try handle(.refusedElsewhere(sources: reportInterval.otherSources.count, reasons: reportInterval.others))
            reportInterval.others = RefusalCounts()
            reportInterval.otherSources = []
        }
    }

    /// Sums up the interval's other refusals and starts the next; forgets quiet sources.
    private func endReportInterval(now: UInt64, _ handle: (Event) throws -> Void) throws {
        try reportPendingRefusals(handle)
        refusalReports = refusalReports.filter { $0.value.count > 0 || $0.value.next > now }
        reportInterval = ReportInterval(end: now + Self.reportInterval)
    }

    /// The fields of a datagram that passed every check. Raw frames get stream 0 and no send time.
    struct Decoded {
        var streamID: UInt32
        var sequence: UInt64
        var buttons: ButtonState
        var frame: AttitudeFrame
        var sentNanoseconds: UInt64?
        var peerName: String? = nil
        var senderKey: UInt64 = 0
        var startedEpoch: PairedPeer? = nil
    }

    /// Checks and decodes one datagram of `length` bytes (of which `bytes` were kept).
    func decode(_ bytes: UnsafeRawBufferPointer, length: Int, from source: SocketAddress? = nil) -> Result<Decoded, Refusal> {
        guard length == bytes.count else { return .failure(.oversized) }
        switch format {
        case .sealed:
            guard let opener else { return .failure(.notMouse3D) }
            switch opener.open(bytes, from: source) {
            case .success(let o):
                let d = o.datagram
                return .success(Decoded(
                    streamID: d.streamID, sequence: d.sequence, buttons: d.buttons, frame: d.frame,
                    sentNanoseconds: d.sentNanoseconds, peerName: o.peerName, senderKey: o.senderKey, startedEpoch: o.startedEpoch))
            case .failure(let refusal): return .failure(refusal)
            }
        case .datagram:
            switch AttitudeDatagram.decode(bytes) {
            case .success(let d):
                return .success(Decoded(
                    streamID: d.streamID, sequence: d.sequence, buttons: d.buttons, frame: d.frame,
                    sentNanoseconds: d.sentNanoseconds))
            case .failure(.wrongSize): return .failure(.wrongSize)
            case .failure(.badMagic): return .failure(.badMagic)
            case .failure(.unsupportedVersion): return .failure(.unsupportedVersion)
            case .failure(.unsupportedKind): return .failure(.unsupportedKind)
            case .failure(.invalidFrame): return .failure(.invalidAngles)
            }
        case .raw:
            guard length == AttitudeFrame.byteCount else { return .failure(.wrongSize) }
            guard let frame = AttitudeFrame.decode(bytes) else { return .failure(.invalidAngles) }
            // A raw peer has no clutch: its motion always counts.
            return .success(Decoded(streamID: 0, sequence: 0, buttons: [.clutch], frame: frame, sentNanoseconds: nil))
        }
    }
}
