import Mouse3DCore
import Mouse3DLinux

/// Opens sealed datagrams from paired senders: finds the sender by id, verifies the tag under the
/// key of the datagram's epoch and generation, and only then checks the sequence against the
/// sender's replay window. Owned by one thread.
public final class SealedStreamOpener {
    /// One paired sender's state (a class: updated in place for every datagram). Only the opener's
    /// thread touches it and no access spans another, so the per-datagram fields skip Swift's
    /// run-time exclusivity checks (five per datagram, 430 of the ~2,900 instructions sealing added).
    private final class Session {
        @exclusivity(unchecked) var peer: PairedPeer
        /// The epoch being accepted, and its replay window.
        @exclusivity(unchecked) var epoch: UInt32
        @exclusivity(unchecked) var window: ReplayWindow
        /// In the stored epoch after a restart: sequences below this were (or may have been) seen.
        @exclusivity(unchecked) var floor: UInt64
        /// Sequences below this may be accepted in the current epoch without storing anything first:
        /// the stored state already refuses them after a crash.
        @exclusivity(unchecked) var reserved: UInt64
        /// A reservation further ahead is being stored (``reserveAhead``).
        @exclusivity(unchecked) var renewing = false
        /// The highest reservation asked for in the current epoch (in the background or on the
        /// spot): what is asked for only ever rises, so the writer, storing in order, never puts a
        /// smaller reservation after a larger one (a late datagram may trigger a renewal).
        @exclusivity(unchecked) var requestedThrough: UInt64 = 0
        /// A new epoch whose state is being stored in the background; its datagrams are held.
        @exclusivity(unchecked) var pendingEpoch: UInt32?
        /// Storing a new epoch in the background failed once: later epochs are stored on the spot.
        @exclusivity(unchecked) var storesEpochsOnTheSpot = false
        /// The epoch was adopted in the background: the next datagram reports the new session.
        @exclusivity(unchecked) var announceEpoch = false
        /// The last two ciphers used, with the epoch, stream, generation and algorithm they are for.
        @exclusivity(unchecked) var ciphers:
            [(epoch: UInt32, stream: UInt32, generation: UInt64, cipher: FrameCipher)] = []
        /// The sender's id (computed once: it is a hash).
        let id: [UInt8]
        /// Frames accepted in the current epoch (wrapping), reported in probe replies.
        @exclusivity(unchecked) var accepted: UInt32 = 0
        /// The key of link probes, made on the first probe.
        var probeKey: LinkProbeKey?
        /// Challenges of the probes answered lately, with when (wall clock): each is answered once.
        var answeredChallenges: [[UInt8]: UInt64] = [:]
        /// Key derivations for epochs, streams or generations not yet verified, so that forged
        /// datagrams naming ever new epochs cost a bounded amount of HKDF: a budget per source
        /// address (forgeries from elsewhere do not spend the real sender's: its new epoch after a
        /// restart is tried at once), under one per sender (many spoofed sources cannot spend more).
        var derivationsFrom = SourceRateLimiter<SocketAddress?>(
            ratePerSecond: SealedStreamOpener.derivationsPerSecond, burst: SealedStreamOpener.derivationBurst,
            capacity: 64)
        var derivations = TokenBucket(
            ratePerSecond: SealedStreamOpener.derivationsPerSecondPerSender,
            burst: SealedStreamOpener.derivationBurstPerSender, now: 0)

        /// Whether one more unverified key may be derived at `now` for a datagram from `source`;
        /// spends a token of each budget if so.
        func allowDerivation(from source: SocketAddress?, now: UInt64) -> Bool {
            guard derivationsFrom.wouldAllow(source, now: now), derivations.take(now: now) else { return false }
            return derivationsFrom.allow(source, now: now)
        }

        init(peer: PairedPeer, floor: UInt64) {
            self.peer = peer
            id = peer.id
            epoch = peer.epoch
            window = ReplayWindow()
            self.floor = floor
            reserved = floor
        }

        /// The cached cipher for a datagram's epoch, stream, generation and algorithm.
        func cachedCipher(epoch: UInt32, stream: UInt32, generation: UInt64, algorithm: SealingAlgorithm)
            -> FrameCipher?
        {
            // The newest first: it is the one almost every datagram uses. By index: iterating a
            // reversed view retained the array and each element it passed.
            var i = ciphers.count
            while i > 0 {
                i -= 1
                if ciphers[i].epoch == epoch && ciphers[i].stream == stream && ciphers[i].generation == generation
                    && ciphers[i].cipher.algorithm == algorithm
                {
                    return ciphers[i].cipher
                }
            }
            return nil
        }

        /// Keeps `cipher` (after it verified a datagram), forgetting the oldest beyond two.
        func remember(_ cipher: FrameCipher, epoch: UInt32, stream: UInt32, generation: UInt64) {
            guard cachedCipher(epoch: epoch, stream: stream, generation: generation, algorithm: cipher.algorithm) == nil
            else { return }
            ciphers.append((epoch, stream, generation, cipher))
            if ciphers.count > 2 { ciphers.removeFirst() }
        }
    }

    /// This receiver's id.
    public let receiverID: [UInt8]
    // Only the owning thread touches these, and no access to one spans a call that could reach it
    // again: the per-datagram ones skip the run-time exclusivity checks (as ``Session``'s fields do).
    /// By sender id (its 8 bytes as a number: no allocation per lookup).
    @exclusivity(unchecked) private var sessions: [UInt64: Session] = [:] {
        didSet { lastSession = nil }
    }
    /// The session of the previous datagram (a stream comes from one sender: no hashing per datagram).
    @exclusivity(unchecked) private var lastSession: (id: UInt64, session: Session)?
    @exclusivity(unchecked) private var plaintext = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
    @exclusivity(unchecked) private var nonce = [UInt8](repeating: 0, count: 12)

    /// Called before the first datagram of a new epoch, and before a sequence number at or beyond
    /// the last reservation, is accepted: it must store the record given (its epoch, and as next
    /// sequence the new reservation) durably and return true, or return false to refuse the datagram.
    /// So a receiver that crashes and restarts refuses everything it may have accepted before.
    /// Without it (tests, benchmarks) nothing is stored.
    public var reserve: ((PairedPeer) -> Bool)?
    /// Called once a stream is half-way through its reservation: it should store the record given in
    /// the background and then call ``reservationStored(_:)``, so that the stream reaches the end of
    /// its reservation with the next one already stored, and no datagram waits for the disk. Without
    /// it (or if the store is late) ``reserve`` is called at the end, as before.
    public var reserveAhead: ((PairedPeer) -> Void)?
    /// Unverified key derivations a sender's id may cost, per second after a burst.
    static let derivationsPerSecond = 20.0, derivationBurst = 32.0
    static let derivationsPerSecondPerSender = 400.0, derivationBurstPerSender = 512.0

    /// How far ahead each reservation reaches, in sequence numbers (about 4 s at 1000 frames/s: a
    /// sender that carries on through a receiver's crash is refused at most that long).
    public static let reservationSpan: UInt64 = 4096

    /// An opener for `peers` (the receiver's paired senders). Each record's `nextSequence` is the
    /// floor of its stored epoch (what the last run may have accepted); `sequenceFloors` can raise it
    /// per sender id.
    public init(receiverID: [UInt8], peers: [PairedPeer], sequenceFloors: [[UInt8]: UInt64] = [:]) {
        self.receiverID = receiverID
        replacePeers(peers, sequenceFloors: sequenceFloors)
    }

    /// Replaces the set of paired senders (after a pairing or revocation): senders no longer listed
    /// are refused from now on; unchanged ones keep their windows.
    public func replacePeers(_ peers: [PairedPeer], sequenceFloors: [[UInt8]: UInt64] = [:]) {
        var next: [UInt64: Session] = [:]
        for peer in peers {
            let key = peer.id.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            if let existing = sessions[key], existing.peer.secret == peer.secret,
                existing.peer.publicKey == peer.publicKey
            {
                existing.peer.name = peer.name
                next[key] = existing
            } else {
                // A sender (re)appearing while running starts from its stored state too.
                next[key] = Session(peer: peer, floor: max(sequenceFloors[peer.id] ?? 0, peer.nextSequence))
            }
        }
        sessions = next
    }

    /// For each sender: its epoch and the next sequence number it may use in it (to store at exit,
    /// so that a restarted receiver refuses replays of what it already accepted).
    public var highWaterMarks: [(peer: PairedPeer, epoch: UInt32, nextSequence: UInt64)] {
        sessions.values.map { s in (s.peer, s.epoch, max(s.floor, s.window.newest.map { $0 + 1 } ?? 0)) }
    }

    /// Whether a datagram's clear header names a paired sender (before any check: one table lookup).
    public func claimsPairedSender(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= SealedDatagramLayout.headerBytes else { return false }
        let key = bytes.loadUnaligned(fromByteOffset: SealedDatagramLayout.senderIDOffset, as: UInt64.self)
        if let last = lastSession, last.id == key { return true }
        return sessions[key] != nil
    }

    /// The paired sender a datagram claims to come from (before any check), for messages.
    public func claimedSenderID(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count >= SealedDatagramLayout.headerBytes else { return nil }
        return Array(
            bytes[
                SealedDatagramLayout.senderIDOffset..<SealedDatagramLayout.senderIDOffset
                    + SealedDatagramLayout.senderIDBytes])
    }

    /// Checks and opens one datagram, from `source` (its derivation budget; nil: one for all).
    public func open(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress? = nil) -> Result<
        VerifiedDatagram, Refusal
    > {
        guard bytes.count >= 4, bytes[0] == AttitudeDatagram.magic.0, bytes[1] == AttitudeDatagram.magic.1,
            bytes[2] == AttitudeDatagram.version
        else { return .failure(bytes.count == AttitudeFrame.byteCount ? .unsealed : .notMouse3D) }
        guard let algorithm = SealingAlgorithm(rawValue: bytes[3]),
            algorithm == .chacha20Poly1305 || FrameCipher.aes256GCMAvailable
        else {
            return .failure(bytes[3] == AttitudeDatagram.plainKind ? .unsealed : .notMouse3D)
        }
        guard bytes.count == SealedDatagramLayout.byteCount else { return .failure(.wrongSize) }
        let senderKey = bytes.loadUnaligned(fromByteOffset: SealedDatagramLayout.senderIDOffset, as: UInt64.self)
        let session: Session
        if let last = lastSession, last.id == senderKey {
            session = last.session
        } else {
            guard let found = sessions[senderKey] else { return .failure(.unknownSender) }
            session = found
            lastSession = (senderKey, found)
        }
        let sequence = bytes.loadLittleEndianUInt64(at: 8)
        let epoch = bytes.loadLittleEndianUInt32(at: SealedDatagramLayout.epochOffset)
        guard epoch >= session.epoch else { return .failure(.staleEpoch) }
        if epoch == session.epoch && sequence < session.floor { return .failure(.replayed) }
        if epoch == session.epoch && !session.window.wouldAccept(sequence) { return .failure(.replayed) }

        // The cipher of this epoch and generation (a newer epoch's is made without adopting it until
        // a datagram verifies under it).
        let generation = SealedDatagramLayout.generation(of: sequence)
        let stream = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let cached = session.cachedCipher(epoch: epoch, stream: stream, generation: generation, algorithm: algorithm)
        // A key not verified yet costs an HKDF: bounded per sender, whoever names it.
        if cached == nil && !session.allowDerivation(from: source, now: MonotonicClock.nanoseconds()) {
            return .failure(.rateLimited)
        }
        let cipher =
            cached
            ?? FrameCipher(
                algorithm: algorithm,
                key: SessionKey.derive(
                    secret: session.peer.secret, algorithm: algorithm, senderID: session.id, receiverID: receiverID,
                    epoch: epoch,
                    streamID: stream, generation: generation))
        SessionKey.write(sequence: sequence, into: &nonce)
        let header = SealedDatagramLayout.headerBytes
        let tagStart = header + SealedDatagramLayout.payloadBytes
        let authentic = nonce.withUnsafeBytes { nonce in
            plaintext.withUnsafeMutableBytes { plain in
                cipher.open(
                    nonce: nonce, associatedData: UnsafeRawBufferPointer(rebasing: bytes[0..<header]),
                    ciphertext: UnsafeRawBufferPointer(rebasing: bytes[header..<tagStart]),
                    tag: UnsafeRawBufferPointer(rebasing: bytes[tagStart...]),
                    plaintext: UnsafeMutableRawBufferPointer(rebasing: plain[16..<40]))
            }
        }
        guard authentic else { return .failure(.badTag) }

        // Authentic. Before a new epoch or a sequence beyond the reservation is accepted, the state
        // that refuses it after a crash is stored.
        let startsEpoch = epoch > session.epoch
        // While a newer epoch is being stored, the older one may not store anything after it (the
        // stored state only moves forward): what needs a new reservation is refused.
        if let pending = session.pendingEpoch, epoch < pending, startsEpoch || sequence >= session.reserved {
            return .failure(.staleEpoch)
        }
        if startsEpoch, let reserveAhead, !session.storesEpochsOnTheSpot {
            // Stored in the background; the caller holds this datagram (and the next ones of the
            // epoch) and offers them again once ``reservationStored(_:stored:)`` adopts it.
            if cached == nil { session.remember(cipher, epoch: epoch, stream: stream, generation: generation) }
            if session.pendingEpoch.map({ $0 < epoch }) ?? true {
                var record = session.peer
                record.epoch = epoch
                record.nextSequence =
                    sequence > UInt64.max - Self.reservationSpan ? UInt64.max : sequence + Self.reservationSpan
                session.pendingEpoch = epoch
                reserveAhead(record)
            }
            return .failure(.awaitingStorage)
        }
        var reservation: UInt64?
        if startsEpoch || sequence >= session.reserved {
            var upTo = sequence > UInt64.max - Self.reservationSpan ? UInt64.max : sequence + Self.reservationSpan
            // Not below a renewal already asked for in this epoch: it may be on disk already.
            if !startsEpoch { upTo = max(upTo, session.requestedThrough) }
            var record = session.peer
            record.epoch = epoch
            record.nextSequence = upTo
            guard reserve?(record) ?? true else { return .failure(.notStored) }
            reservation = upTo
        }
        // Now the epoch may advance and the window move.
        var started = session.announceEpoch
        session.announceEpoch = false
        if startsEpoch {
            session.epoch = epoch
            session.window = ReplayWindow()
            session.floor = 0
            session.peer.epoch = epoch
            session.accepted = 0
            started = true
        }
        if let reservation {
            session.reserved = reservation
            session.requestedThrough = reservation  // at least what any renewal asked for (above)
            session.renewing = false  // a store in the background, if any, is for less than this
        } else if let reserveAhead, !session.renewing, session.pendingEpoch == nil,
            sequence >= session.reserved &- Self.reservationSpan / 2,
            sequence < UInt64.max - Self.reservationSpan, sequence + Self.reservationSpan > session.requestedThrough
        {
            var record = session.peer
            record.epoch = epoch
            record.nextSequence = sequence + Self.reservationSpan
            session.requestedThrough = record.nextSequence
            session.renewing = true
            reserveAhead(record)
        }
        if cached == nil { session.remember(cipher, epoch: epoch, stream: stream, generation: generation) }
        guard session.window.accept(sequence) else { return .failure(.replayed) }

        session.accepted &+= 1
        plaintext.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: 16) }
        plaintext[3] = AttitudeDatagram.plainKind
        switch AttitudeDatagram.decode(plaintext) {
        case .success(let datagram):
            return .success(
                VerifiedDatagram(
                    datagram: datagram, peerName: session.peer.name, senderKey: senderKey,
                    startedEpoch: started ? session.peer : nil))
        case .failure: return .failure(.invalidAngles)
        }
    }

    /// A reservation asked for through ``reserveAhead`` is stored (or, with `stored` false, could not
    /// be: the stream then meets ``reserve`` at the end of its reservation, which asks again).
    /// Returns true when it was a new epoch's (adopted now, or given up): the datagrams held for it
    /// should be offered again.
    @discardableResult
    public func reservationStored(_ record: PairedPeer, stored: Bool = true) -> Bool {
        guard let session = sessions[record.id.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }] else {
            return false
        }
        // A store asked for by an earlier pairing of the same sender (paired again since): not this
        // session's, whatever its epoch.
        guard session.peer.secret == record.secret else { return false }
        if session.pendingEpoch == record.epoch {
            session.pendingEpoch = nil
            if stored && record.epoch > session.epoch {
                session.epoch = record.epoch
                session.window = ReplayWindow()
                session.floor = 0
                session.peer.epoch = record.epoch
                session.accepted = 0
                session.reserved = record.nextSequence
                session.requestedThrough = record.nextSequence
                session.renewing = false
                session.announceEpoch = true
            } else if !stored {
                session.storesEpochsOnTheSpot = true  // held datagrams meet ``reserve`` when offered again
            }
            return true
        }
        if stored && session.epoch == record.epoch && record.nextSequence > session.reserved {
            session.reserved = record.nextSequence
        }
        // Only the outstanding request's completion ends it (an older one's does not).
        if session.epoch != record.epoch || record.nextSequence >= session.requestedThrough { session.renewing = false }
        return false
    }

    /// How far a probe's time may be from this machine's wall clock (both are kept by NTP on a LAN).
    public static let probeFreshnessNanoseconds: UInt64 = 30_000_000_000

    /// The reply to a link probe from a paired sender (to send back to where it came from), or nil
    /// if it is not a probe request from a paired sender with a valid tag, is older or newer than
    /// ``probeFreshnessNanoseconds`` by the wall clock `now`, or was answered before (a replay).
    public func answerProbe(_ bytes: UnsafeRawBufferPointer, now: UInt64 = WallClock.nanoseconds()) -> [UInt8]? {
        guard LinkProbe.looksLike(bytes, kind: LinkProbe.requestKind) else { return nil }
        guard let session = sessions[bytes.loadUnaligned(fromByteOffset: 4, as: UInt64.self)] else { return nil }
        let key =
            session.probeKey ?? LinkProbeKey(secret: session.peer.secret, senderID: session.id, receiverID: receiverID)
        session.probeKey = key
        guard let request = key.open(bytes) else { return nil }
        let age = now > request.sentNanoseconds ? now - request.sentNanoseconds : request.sentNanoseconds - now
        guard age <= Self.probeFreshnessNanoseconds, session.answeredChallenges[request.challenge] == nil else {
            return nil
        }
        if session.answeredChallenges.count >= 1024 {
            // Older than twice the freshness bound: refused by their time anyway.
            session.answeredChallenges = session.answeredChallenges.filter {
                now < $0.value + 2 * Self.probeFreshnessNanoseconds
            }
            // more than 1024 probes a minute: not a sender's
            if session.answeredChallenges.count >= 1024 { return nil }
        }
        session.answeredChallenges[request.challenge] = now
        return key.seal(
            LinkProbe(
                isReply: true, id: receiverID, challenge: request.challenge, sentNanoseconds: request.sentNanoseconds,
                framesAccepted: session.accepted))
    }
}
