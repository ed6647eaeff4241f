import Mouse3DCore
import Mouse3DLinux
import SystemPackage

/// Receives attitude datagrams (or raw frames) on one UDP socket, keeps senders apart, drops what is
/// not a valid frame or is older than the newest of its stream, and notices silence.
/// Owned by one thread.
public final class AttitudeReceiver {
    /// The socket's address.
    public let localAddress: SocketAddress
    /// The socket's descriptor, for the event loop.
    public var descriptor: FileDescriptor { socket.descriptor }
    /// What is accepted.
    public let format: WireFormat
    /// Opens sealed datagrams (format `.sealed` only). (Stored, not read through the verifier: that
    /// retained and released it twice a datagram.)
    public let opener: SealedStreamOpener?
    /// Counts per sender address.
    public var counters: [SocketAddress: SenderCounters] { tally.counters }
    /// Per sender that got a frame accepted: loss, reordering and jitter over the last 10 s.
    public var quality: [SocketAddress: LinkQualityWindow] { tally.quality }
    /// Totals over every sender.
    public var totals: SenderCounters { tally.totals }
    /// Why datagrams were dropped, by reason.
    public private(set) var refusals = RefusalCounts()
    /// Link probes from paired senders answered.
    public private(set) var probesAnswered: UInt64 = 0
    /// Streams dropped to make room.
    public var streamsDropped: UInt64 { streams.dropped }

    private let socket: UDPSocket
    private let verifier: DatagramVerifier
    /// Datagrams read together (`recvmmsg`), 2 kB each: a longer one is refused as oversized.
    private let batch = DatagramBatch(capacity: 64, bufferSize: 2048)
    /// The streams heard, apart from how their datagrams got in.
    private let streams: ReceivedStreams
    /// Touched only by the loop's thread, and no access spans a call that reaches it again: no
    /// run-time exclusivity checks (as ``ReceivedStreams``' per-frame state).
    @exclusivity(unchecked) private var tally = SenderTally()
    private var held = HeldDatagrams(
        limit: AttitudeReceiver.maximumHeld, limitPerSender: AttitudeReceiver.maximumHeldPerSender)
    private var reports = RefusalReports()
    /// Refusals each source may cause before its datagrams are dropped unread: 200 a second after a
    /// burst of 1000, so a flood costs one table lookup per datagram and cannot crowd out a paired
    /// stream's processing.
    private var refusalBudget = SourceRateLimiter<SocketAddress>(ratePerSecond: 200, burst: 1000)

    /// Streams one paired sender may have at once (its stream id and source address are its to
    /// choose, and an on-path attacker can re-send its datagrams from other addresses): each is
    /// memory and, with --uinput, a virtual device. Beyond, the least recently heard is dropped.
    public static let maximumStreamsPerSender = 4
    /// Streams of unauthenticated senders (--raw, --insecure), all together (64 senders).
    public static let maximumUnauthenticatedStreams = 64
    /// Source addresses counted one by one; beyond, those without a stream are summed together.
    public static let maximumCountedSources = 256
    /// Most datagrams held at once (256 ms of 64 senders at 1 kHz, about 4 MB at most); beyond,
    /// refused as not stored. 64 senders starting together wait for one group commit of their
    /// states (``DurableFileWriter``: 36-48 ms on a VM's disk, quiet; longer beside the senders),
    /// and none is released before it ends: at 4096 (64 ms) `bench stream --senders 64` dropped
    /// up to 2083 of them in some rounds.
    public static let maximumHeld = 16384
    /// Most held for one claimed sender (a second of a 1 kHz stream waiting for its store), so that
    /// an attacker replaying one sender's captured datagrams cannot crowd out the others' first ones.
    public static let maximumHeldPerSender = 1024

    /// Where sessions' states are stored (sealed receivers; without one nothing is stored).
    private let store: SessionStore?
    private let storesInBackground: Bool

    /// Binds to `address`. `.sealed` needs an `opener`, and stores what it asks to in `store`.
    public init(
        listeningOn address: SocketAddress, format: WireFormat, opener: SealedStreamOpener? = nil,
        store: SessionStore? = nil
    ) throws(SystemCallError) {
        self.store = store
        storesInBackground = store?.storesInBackground ?? false
        precondition((format == .sealed) == (opener != nil), "a sealed receiver needs an opener, and only it")
        socket = try UDPSocket(family: address.family)
        try socket.bind(to: address)
        try? socket.setReceiveBufferSize(4 << 20)
        localAddress = try socket.localAddress()
        self.format = format
        self.opener = opener
        verifier = DatagramVerifier(format: format, opener: opener)
        streams = ReceivedStreams(format: format, opener: opener)
    }

    /// The label of a live stream as its frames carry it (during ``Event/streamLost(_:)`` too).
    public func label(of stream: StreamKey) -> StreamLabel? { streams.label(of: stream) }

    /// How messages name a stream: its label's description (with the paired sender's name) while it
    /// has one, during its events too; else its address and id.
    public func describe(_ stream: StreamKey) -> String { streams.describe(stream) }

    /// The most datagrams one read takes before the loop's other work: a flood is read in such
    /// reads, each followed by the outputs' write and the loop's timers.
    public static let readLimit = 4096

    /// Reads every datagram waiting (at most `limit`), calling `handle` for each event in order.
    /// Returns how many datagrams were read. The kernel hands over up to 64 per `recvmmsg(2)`.
    @discardableResult
    public func drain(limit: Int = readLimit, _ handle: (Event) throws -> Void) throws -> Int {
        try withoutActuallyEscaping(handle) { try drain(limit: limit, handler: ClosureEventHandler(body: $0)) }
    }

    /// ``drain(limit:_:)`` with a handler (the running reception's: see ``AttitudeEventHandler``).
    @discardableResult
    func drain<H: AttitudeEventHandler>(limit: Int = readLimit, handler: H) throws -> Int {
        var count = 0
        while count < limit {
            let n = try socket.receive(into: batch, limit: limit - count)
            guard n > 0 else { break }
            for i in 0..<n {
                // Each its own time, as read in turn: streams' order of arrival decides which are
                // the least recently heard.
                let now = MonotonicClock.nanoseconds()
                try intake(batch.bytes(i), length: batch.length(i), from: batch.sender(i), now: now, handler)
            }
            count += n
            if n < batch.capacity { break }  // fewer than asked for: nothing more was waiting
        }
        return count
    }

    /// One datagram from the socket: the per-source budget, link probes, then its frame.
    private func intake<H: AttitudeEventHandler>(
        _ bytes: UnsafeRawBufferPointer, length: Int, from sender: SocketAddress, now: UInt64, _ handler: H
    ) throws {
        // A datagram that claims to be a paired sender's is checked by its tag whatever its source
        // sent before (junk spoofed from the sender's own address cannot get its frames dropped);
        // only the rest is subject to the per-source budget.
        let claimsPairedSender =
            length == SealedDatagramLayout.byteCount && (opener?.claimsPairedSender(bytes) ?? false)
        guard claimsPairedSender || refusalBudget.wouldAllow(sender, now: now) else {
            // A source that keeps sending what is refused: dropped unread.
            return try refuse(from: sender, .rateLimited, claimed: nil, now: now, handler)
        }
        if format == .sealed && length == LinkProbe.byteCount && bytes[3] == LinkProbe.requestKind {
            return try answerProbe(bytes, from: sender, now: now, handler)
        }
        try deliver(bytes, length: length, from: sender, now: now, handler)
    }

    /// A paired sender timing the link: answered (once per budget token, so a replayed or forged
    /// probe cannot make this a reflector), never counted as a frame.
    private func answerProbe<H: AttitudeEventHandler>(
        _ bytes: UnsafeRawBufferPointer, from sender: SocketAddress, now: UInt64, _ handler: H
    ) throws {
        _ = refusalBudget.allow(sender, now: now)
        if let reply = opener?.answerProbe(bytes) {
            probesAnswered += 1
            _ = try reply.withUnsafeBytes { try socket.send($0, to: sender) }
        } else {
            try refuse(from: sender, .badLinkProbe, claimed: nil, now: now, handler)
        }
    }

    /// Sessions' states stored in the background have been stored (or could not be: `stored`
    /// false). When one was a new session's, the datagrams held for its sender are offered again:
    /// those of an adopted session are delivered, in order, as if they had just arrived (their
    /// latency counts the wait); the others are held again or refused. Other senders' stay held.
    /// Returns whether any sender's were offered.
    @discardableResult
    public func sessionsStored(_ done: [(record: PairedPeer, stored: Bool)], _ handle: (Event) throws -> Void) throws
        -> Bool
    {
        try withoutActuallyEscaping(handle) { try sessionsStored(done, handler: ClosureEventHandler(body: $0)) }
    }

    /// ``sessionsStored(_:_:)`` with a handler.
    @discardableResult
    func sessionsStored<H: AttitudeEventHandler>(_ done: [(record: PairedPeer, stored: Bool)], handler: H) throws
        -> Bool
    {
        guard let opener else { return false }
        var released = Set<[UInt8]>()
        for d in done where opener.reservationStored(d.record, stored: d.stored) { released.insert(d.record.id) }
        guard !released.isEmpty else { return false }
        for item in held.take(claimedBy: released) {
            try item.bytes.withUnsafeBytes {
                try deliver($0, length: item.bytes.count, from: item.sender, now: item.received, handler)
            }
        }
        return true
    }

    /// Verifies one datagram and hands on its frame (or counts its refusal); stores what its
    /// opening asks for.
    private func deliver<H: AttitudeEventHandler>(
        _ bytes: UnsafeRawBufferPointer, length: Int, from sender: SocketAddress, now: UInt64, _ handler: H
    ) throws {
        var opening = verifier.verify(bytes, length: length, from: sender, inBackground: storesInBackground, now: now)
        if case .storeFirst(let record) = opening, let opener {
            opening = opener.finishAfterStore(stored: store?.storeNow(record) ?? true)
        }
        switch opening {
        case .frame(let verified):
            try streams.meet(verified, from: sender, now: now, tally: &tally, handler)
        case .frameWithNews(let verified, let started, let ahead):
            // A renewal not started (a store failed lately) stays asked for: the stream's reservation
            // is stored first at its end (asking again per datagram would cost each one a lookup).
            if let ahead { _ = store?.storeInBackground(ahead) }
            if let started { try handler.handle(.sessionStarted(started)) }
            try streams.meet(verified, from: sender, now: now, tally: &tally, handler)
        case .hold(let record):
            // The first datagrams of a new session, authentic: held until its state is stored.
            if let refusal = held.hold(
                Array(bytes), claimed: opener?.claimedSenderID(bytes) ?? [], from: sender, at: now)
            {
                tally.dropped(from: sender)
                refusals.add(refusal)
            }
            if let record, !(store?.storeInBackground(record) ?? false) {
                // Not started (a store failed lately): the epoch is stored first when offered again.
                try sessionsStored([(record, false)], handler: handler)
            }
        case .storeFirst:
            preconditionFailure("a store asked for is finished above")
        case .refused(let reason):
            _ = refusalBudget.allow(sender, now: now)
            let claimed = reason == .unknownSender ? opener?.claimedSenderID(bytes) : nil
            try refuse(from: sender, reason, claimed: claimed, now: now, reported: opener != nil, handler)
        }
    }

    /// Reports streams that have been silent for 500 ms as of `now`, and the refusals summed over
    /// the last interval; forgets streams silent for ten minutes (checked at most once a second).
    public func checkSilence(now: UInt64, _ handle: (Event) throws -> Void) throws {
        try withoutActuallyEscaping(handle) { try checkSilence(now: now, handler: ClosureEventHandler(body: $0)) }
    }

    /// ``checkSilence(now:_:)`` with a handler.
    func checkSilence<H: AttitudeEventHandler>(now: UInt64, handler: H) throws {
        try streams.checkSilence(now: now, handler)
        try reports.check(now: now) { try handler.handle(Self.event($0)) }
    }

    /// When ``checkSilence(now:_:)`` is next due: just after a stream would fall silent, at the end
    /// of a reporting interval with refusals to sum, or, while streams are known, at the next
    /// once-a-second look for long-silent ones to forget.
    public var nextCheckDeadline: UInt64? {
        var deadline = streams.nextCheckDeadline
        if let end = reports.pendingDeadline { deadline = min(deadline ?? end, end) }
        return deadline
    }

    /// Counts a refusal of a datagram from `source` and, for a receiver of paired senders (or a
    /// refusal that is not the datagram's form), reports it boundedly.
    private func refuse<H: AttitudeEventHandler>(
        from source: SocketAddress, _ reason: Refusal, claimed: [UInt8]?, now: UInt64, reported: Bool = true,
        _ handler: H
    ) throws {
        tally.dropped(from: source)
        refusals.add(reason)
        if reported {
            try reports.note(from: source, reason: reason, claimed: claimed, now: now) {
                try handler.handle(Self.event($0))
            }
        }
    }

    /// Reports the refusals summed so far (at the end of a run: nothing goes unsaid).
    public func reportPendingRefusals(_ handle: (Event) throws -> Void) throws {
        try withoutActuallyEscaping(handle) { try reportPendingRefusals(handler: ClosureEventHandler(body: $0)) }
    }

    /// ``reportPendingRefusals(_:)`` with a handler.
    func reportPendingRefusals<H: AttitudeEventHandler>(handler: H) throws {
        try reports.flush { try handler.handle(Self.event($0)) }
    }

    private static func event(_ report: RefusalReports.Report) -> Event {
        switch report {
        case .source(let source, let count, let reason, let claimed):
            .refused(source: source, count: count, reason: reason, claimedSender: claimed)
        case .elsewhere(let sources, let reasons): .refusedElsewhere(sources: sources, reasons: reasons)
        }
    }
}
