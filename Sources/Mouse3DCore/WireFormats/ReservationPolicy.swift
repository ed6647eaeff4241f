/// Replay protection that survives a crash, for one paired sender: which epoch and sequence numbers
/// a receiver may accept, and what it must store durably first. A new epoch, and each stretch of
/// ``span`` sequence numbers, is stored before the first datagram in it is accepted, so a receiver
/// that is killed and restarts refuses everything it may have accepted before. Streams renew their
/// reservation half-way through it, in the background, so no datagram waits for the disk.
///
/// Pure state: the opener asks it before and after a datagram's tag is checked and does what it
/// answers (store, hold, accept, refuse); the store's outcome comes back through ``stored(_:)``
/// and ``backgroundStored(_:stored:)``. Nothing here calls out.
public struct ReservationPolicy: Sendable, Equatable {
    /// How far ahead a reservation reaches at least, in sequence numbers (about 4 s at 1000 frames/s:
    /// a sender that carries on through a receiver's crash is refused at most that long). A new
    /// epoch's reservation reaches this far, and so do renewals of streams of 1000 frames/s or less.
    public static let span: UInt64 = 4096
    /// How far ahead a renewal reaches at most: 8 spans. (A sender that slows down just after a
    /// renewal, and carries on through a receiver's crash, is refused until it reaches it: at most
    /// 33 s at 1000 frames/s, where a fixed span made it 4 s.)
    public static let maximumSpan: UInt64 = 8 * span
    /// A renewal reaches as far as its stream went in this long at its rate since the previous one
    /// (within ``span`` and ``maximumSpan``): a faster stream's renewals reach further, so they stay
    /// about 2 s apart up to 8,000 frames/s (at 50,000 frames/s a fixed span stored, and synced to
    /// disk, 25 times a second: the writer thread's 20-24 ms a 100,000 frames were a fifth of what a
    /// sealed receiver spends over the floor, `bench stream`), and a sender that carries on at its
    /// rate through a receiver's crash is still refused for at most about 4 s (at 1000 frames/s or
    /// faster; a slower one for one span, as before).
    public static let renewalReachNanoseconds: UInt64 = 4_000_000_000

    /// What is to be stored: an epoch, and the first sequence number of it not yet reserved.
    public struct Reservation: Sendable, Equatable {
        public var epoch: UInt32
        public var nextSequence: UInt64
        public init(epoch: UInt32, nextSequence: UInt64) {
            self.epoch = epoch
            self.nextSequence = nextSequence
        }
    }

    /// What to do with an authentic datagram.
    public enum Decision: Sendable, Equatable {
        /// Accept it (its sequence is marked as seen). `started`: it is the first of a new session
        /// (worth saying); `storeAhead`: store this in the background now (a renewal).
        case accept(started: Bool, storeAhead: Reservation?)
        /// Hold it until the new epoch's store completes (``backgroundStored(_:stored:)``), then
        /// offer it again. `store`: the store to start now (nil: one is under way already).
        case hold(store: Reservation?)
        /// Store this durably first; then ``stored(_:)`` (or refuse it as not stored).
        case storeFirst(Reservation)
        /// Refuse it.
        case refuse(Refusal)
    }

    /// The epoch being accepted.
    public private(set) var epoch: UInt32
    /// Its replay window.
    public private(set) var window = ReplayWindow()
    /// In the stored epoch after a restart: sequences below this were (or may have been) seen.
    public private(set) var floor: UInt64
    /// Sequences below this may be accepted in the current epoch without storing anything first.
    public private(set) var reserved: UInt64
    /// A reservation further ahead is being stored in the background.
    public private(set) var renewing = false
    /// The highest reservation asked for in the current epoch: what is asked for only ever rises, so
    /// a writer storing in order never puts a smaller reservation after a larger one.
    public private(set) var requestedThrough: UInt64 = 0
    /// The newest epoch stored (adopted or not: one stored in the background while a newer one was
    /// asked for is not adopted).
    public private(set) var storedEpoch: UInt32
    /// A new epoch being stored in the background; its datagrams are held.
    public private(set) var pendingEpoch: UInt32?
    /// Storing a new epoch in the background failed (or was not started): it, and later epochs until
    /// one is stored, are stored first, on the spot.
    public private(set) var storesEpochsOnTheSpot = false
    /// The epoch was adopted in the background: the next accepted datagram says it started.
    private var announceEpoch = false
    /// Frames accepted in the current epoch (wrapping).
    public private(set) var accepted: UInt32 = 0
    /// How far the reservation in force reached past the sequence that asked for it: its renewal is
    /// asked for half-way through it.
    public private(set) var reach: UInt64 = span
    /// The sequence that last asked for a reservation, and when (the stream's rate for the next).
    private var lastAsked: Asked?
    private struct Asked: Sendable, Equatable {
        var sequence: UInt64
        var at: UInt64
    }

    /// A sender whose stored state is `epoch`, with sequences below `floor` refused in it.
    public init(epoch: UInt32, floor: UInt64) {
        self.epoch = epoch
        storedEpoch = epoch
        self.floor = floor
        reserved = floor
    }

    /// The epoch and the next sequence number to store at a clean exit: nothing accepted so far is
    /// accepted again after a restart.
    public var highWaterMark: Reservation {
        // The last sequence number is refused (``precheck(epoch:sequence:)``): newest + 1 exists.
        Reservation(epoch: epoch, nextSequence: max(floor, window.newest.map { min($0, .max - 1) + 1 } ?? 0))
    }

    /// Before the tag is checked (no cryptography spent on these): an older epoch, or a sequence
    /// below the floor or already seen in the current epoch, is refused. So is the last sequence
    /// number, 2^64 − 1, in any epoch: the high-water mark stored after it (the next one) would not
    /// exist, and a sender counting from 0 never reaches it. (Accepted, an authentic datagram
    /// carrying it trapped the receiver at its exit's store: found by the `sealed` fuzz target.)
    @inlinable
    public func precheck(epoch: UInt32, sequence: UInt64) -> Refusal? {
        guard sequence < .max else { return .replayed }
        guard epoch >= self.epoch else { return .staleEpoch }
        if epoch == self.epoch && (sequence < floor || !window.wouldAccept(sequence)) { return .replayed }
        return nil
    }

    /// After the tag verified (and ``precheck(epoch:sequence:)`` passed). `inBackground`: a store in
    /// the background is available (without one, everything is stored first). `now`: when it
    /// arrived (monotonic nanoseconds), which sets how far a renewal reaches (a clock that stands
    /// still, as 0 does, keeps every reservation at ``span``).
    public mutating func decide(epoch: UInt32, sequence: UInt64, inBackground: Bool, now: UInt64 = 0) -> Decision {
        let startsEpoch = epoch > self.epoch
        // While a newer epoch is being stored, or once one was stored, an older one may not store
        // anything after it (the stored state only moves forward): what needs a new reservation is
        // refused.
        if epoch < max(pendingEpoch ?? 0, storedEpoch), startsEpoch || sequence >= reserved {
            return .refuse(.staleEpoch)
        }
        if startsEpoch && inBackground && !storesEpochsOnTheSpot {
            // Stored in the background, asked for once per epoch (a newer one asks again).
            guard pendingEpoch.map({ $0 < epoch }) ?? true else { return .hold(store: nil) }
            pendingEpoch = epoch
            lastAsked = Asked(sequence: sequence, at: now)
            return .hold(store: Reservation(epoch: epoch, nextSequence: Self.reach(from: sequence, by: Self.span)))
        }
        if startsEpoch || sequence >= reserved {
            // Not below a renewal already asked for in this epoch: it may be on disk already.
            let by = startsEpoch ? Self.span : renewalReach(at: sequence, now: now)
            let upTo =
                startsEpoch
                ? Self.reach(from: sequence, by: by) : max(Self.reach(from: sequence, by: by), requestedThrough)
            lastAsked = Asked(sequence: sequence, at: now)
            return .storeFirst(Reservation(epoch: epoch, nextSequence: upTo))
        }
        return accept(sequence: sequence, inBackground: inBackground, now: now)
    }

    /// A ``Decision/storeFirst(_:)`` reservation is stored: the datagram that asked for it
    /// (`sequence` of the reservation's epoch) is accepted, or refused if it was seen meanwhile.
    public mutating func stored(_ reservation: Reservation, sequence: UInt64) -> Decision {
        var started = false
        storedEpoch = max(storedEpoch, reservation.epoch)
        if reservation.epoch > epoch {
            adopt(reservation.epoch)
            started = true
            storesEpochsOnTheSpot = false  // the disk takes stores again: the next epoch in the background
        }
        reach = reservation.nextSequence &- min(sequence, reservation.nextSequence)
        reserved = reservation.nextSequence
        requestedThrough = reservation.nextSequence  // at least what any renewal asked for
        renewing = false  // a store in the background, if any, is for less than this
        guard case .accept(let announced, _) = accept(sequence: sequence, inBackground: false, now: 0) else {
            return .refuse(.replayed)
        }
        return .accept(started: started || announced, storeAhead: nil)
    }

    /// A store in the background completed (or, with `stored` false, failed: the stream then stores
    /// first at the end of its reservation, and epochs are stored first from now on). Returns true
    /// when it was the pending epoch's (adopted now, or given up): the datagrams held for it should
    /// be offered again.
    public mutating func backgroundStored(_ reservation: Reservation, stored: Bool) -> Bool {
        if stored { storedEpoch = max(storedEpoch, reservation.epoch) }
        if pendingEpoch == reservation.epoch {
            pendingEpoch = nil
            if stored && reservation.epoch > epoch {
                adopt(reservation.epoch)
                reserved = reservation.nextSequence
                requestedThrough = reservation.nextSequence
                reach = Self.span
                renewing = false
                announceEpoch = true
            } else if !stored {
                storesEpochsOnTheSpot = true  // held datagrams are stored first when offered again
            }
            return true
        }
        if stored && epoch == reservation.epoch && reservation.nextSequence > reserved {
            reserved = reservation.nextSequence
        }
        // Only the outstanding request's completion ends it (an older one's does not).
        if epoch != reservation.epoch || reservation.nextSequence >= requestedThrough { renewing = false }
        return false
    }

    /// Marks `sequence` of the current epoch as seen; asks for a renewal half-way through the
    /// reservation when a store in the background is available.
    private mutating func accept(sequence: UInt64, inBackground: Bool, now: UInt64) -> Decision {
        guard window.accept(sequence) else { return .refuse(.replayed) }
        accepted &+= 1
        var ahead: Reservation?
        if inBackground, !renewing, pendingEpoch == nil, sequence >= reserved &- reach / 2,
            sequence < UInt64.max - Self.maximumSpan
        {
            let by = renewalReach(at: sequence, now: now)
            if sequence + by > requestedThrough {
                requestedThrough = sequence + by
                reach = by
                renewing = true
                lastAsked = Asked(sequence: sequence, at: now)
                ahead = Reservation(epoch: epoch, nextSequence: requestedThrough)
            }
        }
        let started = announceEpoch
        announceEpoch = false
        return .accept(started: started, storeAhead: ahead)
    }

    /// A new epoch: a fresh window, nothing below a floor.
    private mutating func adopt(_ newEpoch: UInt32) {
        epoch = newEpoch
        window = ReplayWindow()
        floor = 0
        accepted = 0
    }

    /// How far a renewal asked for by `sequence` at `now` reaches: as far as the stream went in
    /// ``renewalReachNanoseconds`` at its rate since the previous ask (the least, ``span``, when there
    /// is none in this epoch, or the clock did not move), at most ``maximumSpan``.
    private func renewalReach(at sequence: UInt64, now: UInt64) -> UInt64 {
        guard let last = lastAsked, sequence > last.sequence, now > last.at else { return Self.span }
        let went = min(sequence - last.sequence, Self.maximumSpan)
        let elapsed = now - last.at
        // went ≤ 2^15 and the reach time < 2^32: no overflow.
        let atRate = went * Self.renewalReachNanoseconds / elapsed
        return min(max(atRate, Self.span), Self.maximumSpan)
    }

    /// A reservation from `sequence` on, `by` further (saturating at the top).
    private static func reach(from sequence: UInt64, by: UInt64) -> UInt64 {
        sequence > UInt64.max - by ? UInt64.max : sequence + by
    }
}
