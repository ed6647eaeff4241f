/// Keeps the streams a receiver hears apart: orders each by sequence number (latest wins), counts loss
/// and reordering, and notices when one falls silent and when it comes back.
///
/// `Stream` identifies a stream, for example a sender address with its stream id. Times are any
/// monotonic clock in nanoseconds. A value type: its owner serialises access.
public struct StreamTracker<Stream: Hashable & Sendable>: Sendable {
    /// What is known about one stream.
    public struct State: Sendable, Equatable {
        @inlinable
        init(newestSequence: UInt64, lastHeardNanoseconds: UInt64) {
            self.newestSequence = newestSequence
            self.lastHeardNanoseconds = lastHeardNanoseconds
        }

        /// The newest sequence number accepted.
        public var newestSequence: UInt64
        /// When the stream was last heard from.
        public var lastHeardNanoseconds: UInt64
        /// Whether the stream is currently silent for longer than the limit.
        public var isSilent = false
        /// Datagrams accepted.
        public var accepted: UInt64 = 0
        /// Sequence numbers skipped over (never seen before a newer one).
        public var lost: UInt64 = 0
        /// Datagrams that arrived after a newer one (or twice) and were dropped.
        public var reordered: UInt64 = 0
    }

    /// What to do with a datagram.
    public enum Verdict: Sendable, Equatable {
        /// Newest of its stream: use it. `isNew` for a stream's first datagram, `resumed` after silence.
        case accept(isNew: Bool, resumed: Bool)
        /// Older than (or equal to) one already accepted: drop it.
        case stale
    }

    /// How long a stream may be silent before it counts as lost, in nanoseconds.
    public let silenceLimitNanoseconds: UInt64
    /// Every stream heard so far.
    public var streams: [Stream: State] { _streams }
    @usableFromInline var _streams: [Stream: State] = [:]
    /// The stream found last, and where: its next datagram (most are) is found without a hash.
    /// Forgotten whenever a stream is started or removed, which moves places.
    @usableFromInline var _last: (stream: Stream, place: Place)?

    /// A tracker that calls a stream lost after `silenceLimitNanoseconds` without datagrams (500 ms).
    @inlinable
    public init(silenceLimitNanoseconds: UInt64 = 500_000_000) {
        self.silenceLimitNanoseconds = silenceLimitNanoseconds
    }

    /// Judges a datagram with `sequence` from `stream`, heard at `now`.
    @inlinable
    public mutating func receive(_ stream: Stream, sequence: UInt64, now: UInt64) -> Verdict {
        guard let index = _streams.index(forKey: stream) else { return start(stream, sequence: sequence, now: now) }
        return receive(at: index, sequence: sequence, now: now)
    }

    /// Where a stream's state is kept, or nil for one not heard yet. With ``receive(at:sequence:now:)``
    /// and ``newestSequence(at:)`` a datagram costs its stream at most one hash (none when the last
    /// place asked for was its); the place is good until the next stream is started or removed.
    public typealias Place = Dictionary<Stream, State>.Index

    /// Where `stream`'s state is, or nil for a stream not heard yet.
    @inlinable
    public mutating func place(of stream: Stream) -> Place? {
        if let last = _last, last.stream == stream { return last.place }
        let place = _streams.index(forKey: stream)
        _last = place.map { (stream, $0) }
        return place
    }

    /// The newest sequence number accepted from the stream at `place`.
    @inlinable
    public func newestSequence(at place: Place) -> UInt64 { _streams.values[place].newestSequence }

    /// ``receive(_:sequence:now:)`` for a stream already heard, found at `place`.
    @inlinable
    public mutating func receive(at place: Place, sequence: UInt64, now: UInt64) -> Verdict {
        _streams.values.withState(at: place) { state in
            guard sequence > state.newestSequence else {
                state.reordered += 1
                return .stale
            }
            state.lost += sequence - state.newestSequence - 1
            state.newestSequence = sequence
            state.lastHeardNanoseconds = now
            state.accepted += 1
            let resumed = state.isSilent
            state.isSilent = false
            return .accept(isNew: false, resumed: resumed)
        }
    }

    /// ``receive(_:sequence:now:)`` for a stream not heard yet: it starts with this datagram.
    @inlinable
    public mutating func start(_ stream: Stream, sequence: UInt64, now: UInt64) -> Verdict {
        var fresh = State(newestSequence: sequence, lastHeardNanoseconds: now)
        fresh.accepted = 1
        _streams[stream] = fresh
        _last = nil
        return .accept(isNew: true, resumed: false)
    }

    /// Marks the streams that have been silent past the limit at `now`; returns those newly silent.
    @inlinable
    public mutating func checkSilence(now: UInt64) -> [Stream] {
        var newlySilent: [Stream] = []
        for (stream, state) in _streams where !state.isSilent {
            if now >= state.lastHeardNanoseconds, now - state.lastHeardNanoseconds > silenceLimitNanoseconds {
                newlySilent.append(stream)
            }
        }
        for stream in newlySilent { _streams[stream]?.isSilent = true }
        return newlySilent
    }

    /// When the next stream will fall silent if nothing arrives, or `nil` if none can.
    @inlinable
    public func nextSilenceDeadline() -> UInt64? {
        var earliest: UInt64?
        for state in _streams.values where !state.isSilent {
            let deadline = state.lastHeardNanoseconds + silenceLimitNanoseconds
            if earliest == nil || deadline < earliest! { earliest = deadline }
        }
        return earliest
    }

    /// Forgets `stream` now (to make room for another).
    @inlinable
    public mutating func remove(_ stream: Stream) {
        _streams[stream] = nil
        _last = nil
    }

    /// Forgets streams silent for longer than `nanoseconds` (a sender that restarted gets a new id).
    @inlinable
    public mutating func forget(silentLongerThan nanoseconds: UInt64, now: UInt64) {
        _streams = _streams.filter { _, s in !(s.isSilent && now > s.lastHeardNanoseconds + nanoseconds) }
        _last = nil
    }
}

extension Dictionary.Values {
    /// Runs `body` on the value at `index` in place (no copy of the value out and back).
    @inlinable
    mutating func withState<R>(at index: Dictionary.Index, _ body: (inout Value) -> R) -> R {
        body(&self[index])
    }
}
