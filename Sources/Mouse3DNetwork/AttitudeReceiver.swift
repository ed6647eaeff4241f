import Mouse3DCore
import Mouse3DLinux

/// Receives attitude datagrams (or raw frames) on one UDP socket, keeps senders apart, drops what is
/// not a valid frame or is older than the newest of its stream, and notices silence.
/// Owned by one thread.
public final class AttitudeReceiver {
    /// A stream: who sent it and its id (0 for raw frames, which carry none).
    public struct StreamKey: Hashable, Sendable, CustomStringConvertible {
        /// Creates a key.
        public init(sender: SocketAddress, streamID: UInt32) {
            self.sender = sender
            self.streamID = streamID
        }

        /// The sender's address.
        public var sender: SocketAddress
        /// The stream id the sender chose.
        public var streamID: UInt32
        public var description: String {
            streamID == 0 ? "\(sender)" : "\(sender) stream \(String(streamID, radix: 16))"
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
    }

    /// Counts per sender address, since the receiver started.
    public struct SenderCounters: Sendable, Equatable {
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
    /// The descriptor to poll.
    public var descriptor: Int32 { socket.descriptor }
    /// What is accepted.
    public let format: WireFormat
    /// Counts per sender address.
    public private(set) var counters: [SocketAddress: SenderCounters] = [:]
    /// Why datagrams were dropped, by reason.
    public private(set) var dropReasons: [String: UInt64] = [:]
    private var tracker = StreamTracker<StreamKey>()
    private var rawSequence: [SocketAddress: UInt64] = [:]
    private var nextForget: UInt64 = 0
    private let socket: UDPSocket
    private var buffer = [UInt8](repeating: 0, count: 2048)

    /// Binds to `address`.
    public init(listeningOn address: SocketAddress, format: WireFormat) throws(SystemCallError) {
        socket = try UDPSocket(family: address.family)
        try socket.bind(to: address)
        try? socket.setReceiveBufferSize(4 << 20)
        localAddress = try socket.localAddress()
        self.format = format
    }

    /// Totals over every sender.
    public var totals: SenderCounters {
        counters.values.reduce(into: SenderCounters()) { t, c in
            t.frames += c.frames
            t.dropped += c.dropped
            t.lost += c.lost
            t.reordered += c.reordered
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
            let bytes = min(length, buffer.count)
            let decoded = buffer.withUnsafeBytes { raw in
                decode(UnsafeRawBufferPointer(rebasing: raw[0..<bytes]), length: length)
            }
            switch decoded {
            case .failure(let reason):
                counters[sender, default: SenderCounters()].dropped += 1
                dropReasons[reason.rawValue, default: 0] += 1
            case .success(let d):
                let streamID = d.streamID
                var sequence = d.sequence
                if format == .raw {
                    sequence = rawSequence[sender, default: 0]
                    rawSequence[sender] = sequence + 1
                }
                let key = StreamKey(sender: sender, streamID: streamID)
                let before = tracker.streams[key]
                switch tracker.receive(key, sequence: sequence, now: now) {
                case .stale:
                    counters[sender, default: SenderCounters()].reordered += 1
                case .accept(let isNew, let resumed):
                    if let before { counters[sender, default: SenderCounters()].lost += sequence - before.newestSequence - 1 }
                    counters[sender, default: SenderCounters()].frames += 1
                    if isNew { try handle(.streamStarted(key)) }
                    if resumed { try handle(.streamResumed(key)) }
                    try handle(.frame(ReceivedFrame(
                        stream: key, sequence: sequence, buttons: d.buttons, frame: d.frame,
                        sentNanoseconds: d.sentNanoseconds, receivedNanoseconds: now)))
                }
            }
        }
        return count
    }

    /// Reports streams that have been silent for 500 ms as of `now`; forgets streams silent for ten
    /// minutes (checked at most once a second).
    public func checkSilence(now: UInt64, _ handle: (Event) throws -> Void) rethrows {
        for key in tracker.checkSilence(now: now) { try handle(.streamLost(key)) }
        if now >= nextForget {
            tracker.forget(silentLongerThan: 600_000_000_000, now: now)
            nextForget = now + 1_000_000_000
        }
    }

    /// When a stream will next fall silent if nothing arrives.
    public var nextSilenceDeadline: UInt64? { tracker.nextSilenceDeadline() }

    /// Why a datagram was dropped.
    enum DropReason: String, Error {
        case oversized = "oversized", wrongSize = "wrong size", badMagic = "bad magic"
        case unsupportedVersion = "unsupported version", unsupportedKind = "unsupported kind"
        case invalidAngles = "invalid angles"
    }

    /// The fields of a datagram that passed every check. Raw frames get stream 0 and no send time.
    struct Decoded {
        var streamID: UInt32
        var sequence: UInt64
        var buttons: ButtonState
        var frame: AttitudeFrame
        var sentNanoseconds: UInt64?
    }

    /// Checks and decodes one datagram of `length` bytes (of which `bytes` were kept).
    func decode(_ bytes: UnsafeRawBufferPointer, length: Int) -> Result<Decoded, DropReason> {
        guard length == bytes.count else { return .failure(.oversized) }
        switch format {
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
