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
        /// The pairing (its epoch and next sequence as loaded: the current ones are the policy's).
        @exclusivity(unchecked) var peer: PairedPeer
        /// Its epoch, replay window and reservations.
        @exclusivity(unchecked) var policy: ReservationPolicy
        /// The last two ciphers used (the newest last), which keep them.
        @exclusivity(unchecked) private var ciphers: [FrameCipher] = []
        /// What each of ``ciphers`` is for, with the cipher unretained (`ciphers` holds it): a
        /// cipher read out of `ciphers` was retained and released for each datagram it opened.
        @exclusivity(unchecked) private var cipherKeys:
            [(
                epoch: UInt32, stream: UInt32, generation: UInt64, algorithm: SealingAlgorithm,
                cipher: Unmanaged<FrameCipher>
            )] =
                []
        /// The sender's id (computed once: it is a hash).
        let id: [UInt8]
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

        /// ``ReservationPolicy/precheck(epoch:sequence:)`` on the policy where it is: called on the
        /// property, it copied the whole policy (its replay window's array retained and released)
        /// for every datagram, as a read of a class's property must around a call it cannot see into.
        func precheck(epoch: UInt32, sequence: UInt64) -> Refusal? {
            Self.precheck(&policy, epoch: epoch, sequence: sequence)
        }

        private static func precheck(_ policy: inout ReservationPolicy, epoch: UInt32, sequence: UInt64)
            -> Refusal?
        {
            policy.precheck(epoch: epoch, sequence: sequence)
        }

        /// Whether one more unverified key may be derived at `now` for a datagram from `source`;
        /// spends a token of each budget if so.
        func allowDerivation(from source: SocketAddress?, now: UInt64) -> Bool {
            guard derivationsFrom.wouldAllow(source, now: now), derivations.take(now: now) else { return false }
            return derivationsFrom.allow(source, now: now)
        }

        init(peer: PairedPeer, floor: UInt64) {
            self.peer = peer
            id = peer.id
            policy = ReservationPolicy(epoch: peer.epoch, floor: floor)
        }

        /// The cached cipher for a datagram's epoch, stream, generation and algorithm, unretained:
        /// valid until the next ``remember(_:epoch:stream:generation:)``.
        func cachedCipher(epoch: UInt32, stream: UInt32, generation: UInt64, algorithm: SealingAlgorithm)
            -> Unmanaged<FrameCipher>?
        {
            // The newest first: it is the one almost every datagram uses. By index: iterating a
            // reversed view retained the array.
            var i = cipherKeys.count
            while i > 0 {
                i -= 1
                let k = cipherKeys[i]
                if k.epoch == epoch && k.stream == stream && k.generation == generation && k.algorithm == algorithm {
                    return k.cipher
                }
            }
            return nil
        }

        /// Keeps `cipher` (after it verified a datagram), forgetting the oldest beyond two.
        func remember(_ cipher: FrameCipher, epoch: UInt32, stream: UInt32, generation: UInt64) {
            guard cachedCipher(epoch: epoch, stream: stream, generation: generation, algorithm: cipher.algorithm) == nil
            else { return }
            ciphers.append(cipher)
            cipherKeys.append((epoch, stream, generation, cipher.algorithm, .passUnretained(cipher)))
            if ciphers.count > 2 {
                ciphers.removeFirst()
                cipherKeys.removeFirst()
            }
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
    /// The session of the previous datagram (a stream comes from one sender: no hashing per datagram),
    /// unretained: `sessions` holds every session and forgets this whenever it changes. (Held, it was
    /// retained and released around each datagram's opening: atomic operations, each dearer than
    /// most of what the opening does around the cipher.)
    @exclusivity(unchecked) private var lastSession: (id: UInt64, session: Unmanaged<Session>)?
    /// The datagram that asked to be stored first (``Opening/storeFirst(_:)``), until
    /// ``finishAfterStore(stored:)``.
    private var awaitingStore: AwaitingStore?
    private struct AwaitingStore {
        let session: Session
        let reservation: ReservationPolicy.Reservation
        let datagram: VerifiedDatagram?
        let sequence: UInt64
        /// Its cipher, remembered if the store lets it through.
        let cipher: FrameCipher?, stream: UInt32, generation: UInt64
    }

    /// Unverified key derivations a sender's id may cost, per second after a burst.
    static let derivationsPerSecond = 20.0, derivationBurst = 32.0
    static let derivationsPerSecondPerSender = 400.0, derivationBurstPerSender = 512.0

    /// How far ahead a reservation reaches at least, in sequence numbers (``ReservationPolicy/span``;
    /// renewals of streams faster than 1000 frames/s reach further).
    public static let reservationSpan = ReservationPolicy.span

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
        sessions.values.map { s in (s.peer, s.policy.highWaterMark.epoch, s.policy.highWaterMark.nextSequence) }
    }

    /// Whether a datagram's clear header names a paired sender (before any check: one table lookup).
    /// The sender found is kept as the last one, so that ``open(_:from:inBackground:now:)`` of the
    /// same datagram does not look it up again (with many senders interleaved, the last one of the
    /// previous datagram is rarely this one's).
    public func claimsPairedSender(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= SealedDatagramLayout.headerBytes else { return false }
        let key = bytes.loadUnaligned(fromByteOffset: SealedDatagramLayout.senderIDOffset, as: UInt64.self)
        if let last = lastSession, last.id == key { return true }
        guard let found = sessions[key] else { return false }
        lastSession = (key, .passUnretained(found))
        return true
    }

    /// The paired sender a datagram claims to come from (before any check), for messages.
    public func claimedSenderID(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count >= SealedDatagramLayout.headerBytes else { return nil }
        return Array(
            bytes[
                SealedDatagramLayout.senderIDOffset..<SealedDatagramLayout.senderIDOffset
                    + SealedDatagramLayout.senderIDBytes])
    }

    /// The name of the paired sender whose id starts with `senderKey` (as ``VerifiedDatagram`` has it).
    public func name(ofSender senderKey: UInt64) -> String? { sessions[senderKey]?.peer.name }

    /// Checks and opens one datagram, from `source` (its derivation budget; nil: one for all).
    /// `inBackground`: the receiver stores sessions in the background (a new epoch's datagrams are
    /// then held while it is stored, and reservations are renewed ahead); without it every store is
    /// asked for first. `now`: when it arrived (monotonic nanoseconds), which sets how far a renewal
    /// of the sender's reservation reaches (``ReservationPolicy/decide(epoch:sequence:inBackground:now:)``;
    /// 0: the least).
    public func open(
        _ bytes: UnsafeRawBufferPointer, from source: SocketAddress? = nil, inBackground: Bool = false, now: UInt64 = 0
    ) -> Opening {
        precondition(awaitingStore == nil, "a datagram still waits for its store (finishAfterStore)")
        guard bytes.count >= 4, bytes[0] == AttitudeDatagram.magic.0, bytes[1] == AttitudeDatagram.magic.1,
            bytes[2] == AttitudeDatagram.version
        else { return .refused(bytes.count == AttitudeFrame.byteCount ? .unsealed : .notMouse3D) }
        guard let algorithm = SealingAlgorithm(rawValue: bytes[3]),
            algorithm == .chacha20Poly1305 || FrameCipher.aes256GCMAvailable
        else {
            return .refused(bytes[3] == AttitudeDatagram.plainKind ? .unsealed : .notMouse3D)
        }
        guard bytes.count == SealedDatagramLayout.byteCount else { return .refused(.wrongSize) }
        let senderKey = bytes.loadUnaligned(fromByteOffset: SealedDatagramLayout.senderIDOffset, as: UInt64.self)
        let session: Unmanaged<Session>
        if let last = lastSession, last.id == senderKey {
            session = last.session
        } else {
            guard let found = sessions[senderKey] else { return .refused(.unknownSender) }
            session = .passUnretained(found)
            lastSession = (senderKey, session)
        }
        // Nothing below changes `sessions`: the session stays alive without a retain.
        return session._withUnsafeGuaranteedRef {
            open(
                bytes, algorithm: algorithm, senderKey: senderKey, session: $0, from: source,
                inBackground: inBackground,
                now: now)
        }
    }

    /// ``open(_:from:inBackground:now:)`` once the datagram's sender is found.
    private func open(
        _ bytes: UnsafeRawBufferPointer, algorithm: SealingAlgorithm, senderKey: UInt64, session: Session,
        from source: SocketAddress?, inBackground: Bool, now: UInt64
    ) -> Opening {
        let sequence = bytes.loadLittleEndianUInt64(at: 8)
        let epoch = bytes.loadLittleEndianUInt32(at: SealedDatagramLayout.epochOffset)
        if let refusal = session.precheck(epoch: epoch, sequence: sequence) { return .refused(refusal) }

        // The cipher of this epoch and generation (a newer epoch's is made without adopting it until
        // a datagram verifies under it).
        let generation = SealedDatagramLayout.generation(of: sequence)
        let stream = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let cached = session.cachedCipher(epoch: epoch, stream: stream, generation: generation, algorithm: algorithm)
        // A key not verified yet costs an HKDF: bounded per sender, whoever names it.
        if cached == nil && !session.allowDerivation(from: source, now: MonotonicClock.nanoseconds()) {
            return .refused(.rateLimited)
        }
        // A new cipher is held here until the policy decides whether it is remembered.
        let derived =
            cached != nil
            ? nil
            : FrameCipher(
                algorithm: algorithm,
                key: SessionKey.derive(
                    secret: session.peer.secret, algorithm: algorithm, senderID: session.id, receiverID: receiverID,
                    epoch: epoch,
                    streamID: stream, generation: generation))
        let opened =
            if let derived {
                Self.open(bytes, with: derived, sequence: sequence, stream: stream, senderKey: senderKey)
            } else {
                cached!._withUnsafeGuaranteedRef {
                    Self.open(bytes, with: $0, sequence: sequence, stream: stream, senderKey: senderKey)
                }
            }
        guard let datagram = opened else { return .refused(.badTag) }
        let decision = session.policy.decide(epoch: epoch, sequence: sequence, inBackground: inBackground, now: now)
        switch decision {
        case .refuse, .storeFirst: break
        case .hold, .accept:
            if let derived { session.remember(derived, epoch: epoch, stream: stream, generation: generation) }
        }
        if case .storeFirst(let reservation) = decision {
            awaitingStore = AwaitingStore(
                session: session, reservation: reservation, datagram: datagram, sequence: sequence,
                cipher: derived, stream: stream, generation: generation)
            return .storeFirst(record(of: session, reservation))
        }
        return opening(decision, session: session, datagram: datagram)
    }

    /// A datagram's payload opened under `cipher`: nil if its tag is not authentic; else its
    /// frame (nil inside: its angles are not valid, refused once the policy has marked its sequence).
    private static func open(
        _ bytes: UnsafeRawBufferPointer, with cipher: FrameCipher, sequence: UInt64, stream: UInt32, senderKey: UInt64
    ) -> VerifiedDatagram?? {
        let header = SealedDatagramLayout.headerBytes
        let tagStart = header + SealedDatagramLayout.payloadBytes
        // The nonce and the plaintext on the stack: as arrays on the opener each access checked the
        // buffer was unique, twice a datagram.
        return withUnsafeTemporaryAllocation(byteCount: 12 + SealedDatagramLayout.payloadBytes, alignment: 8) {
            scratch in
            let nonce = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<12])
            let plain = UnsafeMutableRawBufferPointer(rebasing: scratch[12...])
            SessionKey.write(sequence: sequence, into: nonce)
            guard
                cipher.open(
                    nonce: UnsafeRawBufferPointer(nonce),
                    associatedData: UnsafeRawBufferPointer(rebasing: bytes[0..<header]),
                    ciphertext: UnsafeRawBufferPointer(rebasing: bytes[header..<tagStart]),
                    tag: UnsafeRawBufferPointer(rebasing: bytes[tagStart...]), plaintext: plain)
            else { return nil }
            // Authentic: the header in clear and the opened payload are the datagram.
            return .some(
                AttitudeDatagram.decode(payload: UnsafeRawBufferPointer(plain), streamID: stream, sequence: sequence)
                    .map { VerifiedDatagram(datagram: $0, senderKey: senderKey) })
        }
    }

    /// Opens a datagram for a receiver that stores nothing (tests, benchmarks, fuzzing): what asks to
    /// be stored first goes on as if it had been.
    public func openStoringNothing(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress? = nil) -> Opening {
        let opening = open(bytes, from: source)
        guard case .storeFirst = opening else { return opening }
        return finishAfterStore(stored: true)
    }

    /// The rest of a datagram that asked to be stored first: `stored` says whether its record was
    /// stored durably (if not, it is refused as not stored).
    public func finishAfterStore(stored: Bool) -> Opening {
        guard let waiting = awaitingStore else { preconditionFailure("no datagram waits for a store") }
        awaitingStore = nil
        guard stored else { return .refused(.notStored) }
        let decision = waiting.session.policy.stored(waiting.reservation, sequence: waiting.sequence)
        if let cipher = waiting.cipher, case .accept = decision {
            waiting.session.remember(
                cipher, epoch: waiting.reservation.epoch, stream: waiting.stream, generation: waiting.generation)
        }
        return opening(decision, session: waiting.session, datagram: waiting.datagram)
    }

    /// The opening a policy's decision comes to.
    private func opening(_ decision: ReservationPolicy.Decision, session: Session, datagram: VerifiedDatagram?)
        -> Opening
    {
        switch decision {
        case .refuse(let reason): return .refused(reason)
        case .storeFirst(let reservation): return .storeFirst(record(of: session, reservation))
        case .hold(let store): return .hold(store: store.map { record(of: session, $0) })
        case .accept(let started, let ahead):
            guard let datagram else {
                // Its sequence is marked; a renewal it asked for is asked for again by the next one.
                if let ahead { _ = session.policy.backgroundStored(ahead, stored: false) }
                return .refused(.invalidAngles)
            }
            guard started || ahead != nil else { return .frame(datagram) }
            return .frameWithNews(
                datagram, started: started ? record(of: session, session.policy.highWaterMark) : nil,
                storeAhead: ahead.map { record(of: session, $0) })
        }
    }

    /// The sender's record with `reservation` as its stored state.
    private func record(of session: Session, _ reservation: ReservationPolicy.Reservation) -> PairedPeer {
        var record = session.peer
        record.epoch = reservation.epoch
        record.nextSequence = reservation.nextSequence
        return record
    }

    /// A reservation stored in the background (``Opening/hold(store:)``,
    /// ``Opening/frameWithNews(_:started:storeAhead:)``) is stored, or, with `stored` false, could not
    /// be: the stream then stores first at the end of its reservation. Returns true when it was a
    /// new epoch's (adopted now, or given up): the datagrams held for it should be offered again.
    @discardableResult
    public func reservationStored(_ record: PairedPeer, stored: Bool = true) -> Bool {
        guard let session = sessions[record.id.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }] else {
            return false
        }
        // A store asked for by an earlier pairing of the same sender (paired again since): not this
        // session's, whatever its epoch.
        guard session.peer.secret == record.secret else { return false }
        return session.policy.backgroundStored(
            ReservationPolicy.Reservation(epoch: record.epoch, nextSequence: record.nextSequence), stored: stored)
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
                framesAccepted: session.policy.accepted))
    }
}
