/// One mouse3d datagram: a header that tells streams apart and orders them, then the 12-byte frame.
///
/// Layout (all integers little-endian), 40 bytes:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | magic `M3` (0x4D 0x33) |
/// | 2 | 1 | version, 1 |
/// | 3 | 1 | kind: 0 plain (1 is reserved for the sealed form) |
/// | 4 | 4 | stream id: random per sender run |
/// | 8 | 8 | sequence number, from 0, +1 per datagram of the stream |
/// | 16 | 8 | sender's monotonic clock at sending, ns |
/// | 24 | 4 | button bitmask (``ButtonState``) |
/// | 28 | 12 | ``AttitudeFrame`` |
///
/// The first 16 bytes are the header a sealed form keeps in clear (as associated data) with the
/// sequence number as its nonce counter; bytes 16–39 are what it will encrypt.
public struct AttitudeDatagram: Sendable, Equatable {
    /// The stream this datagram belongs to.
    public var streamID: UInt32
    /// Its position in the stream.
    public var sequence: UInt64
    /// The sender's monotonic clock when it was sent, in nanoseconds.
    public var sentNanoseconds: UInt64
    /// The sender's buttons.
    public var buttons: ButtonState
    /// The attitude.
    public var frame: AttitudeFrame

    /// The two magic bytes that start every datagram.
    public static let magic: (UInt8, UInt8) = (0x4D, 0x33)
    /// The protocol version this code speaks.
    public static let version: UInt8 = 1
    /// The kind byte of a plain (unsealed) datagram.
    public static let plainKind: UInt8 = 0
    /// The size of an encoded datagram, in bytes.
    public static let byteCount = 40

    /// Creates a datagram.
    public init(streamID: UInt32, sequence: UInt64, sentNanoseconds: UInt64, buttons: ButtonState, frame: AttitudeFrame)
    {
        self.streamID = streamID
        self.sequence = sequence
        self.sentNanoseconds = sentNanoseconds
        self.buttons = buttons
        self.frame = frame
    }

    /// The encoded bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        bytes.append(Self.magic.0)
        bytes.append(Self.magic.1)
        bytes.append(Self.version)
        bytes.append(Self.plainKind)
        bytes.appendLittleEndian(streamID)
        bytes.appendLittleEndian(sequence)
        bytes.appendLittleEndian(sentNanoseconds)
        bytes.appendLittleEndian(buttons.rawValue)
        frame.encode(into: &bytes)
        return bytes
    }

    /// Why a datagram was refused.
    public enum DecodingError: Error, Sendable, Equatable {
        /// Not 40 bytes.
        case wrongSize(Int)
        /// Does not start with the magic bytes.
        case badMagic
        /// A version this code does not speak.
        case unsupportedVersion(UInt8)
        /// A kind this code does not accept here (for example a sealed datagram to a plain receiver).
        case unsupportedKind(UInt8)
        /// The frame holds a NaN, an infinity or an angle out of range.
        case invalidFrame
    }

    /// Decodes and validates one datagram.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<AttitudeDatagram, DecodingError> {
        guard bytes.count == byteCount else { return .failure(.wrongSize(bytes.count)) }
        guard bytes[0] == magic.0, bytes[1] == magic.1 else { return .failure(.badMagic) }
        guard bytes[2] == version else { return .failure(.unsupportedVersion(bytes[2])) }
        guard bytes[3] == plainKind else { return .failure(.unsupportedKind(bytes[3])) }
        guard let frame = AttitudeFrame.decode(bytes, at: 28) else { return .failure(.invalidFrame) }
        return .success(
            AttitudeDatagram(
                streamID: bytes.loadLittleEndianUInt32(at: 4),
                sequence: bytes.loadLittleEndianUInt64(at: 8),
                sentNanoseconds: bytes.loadLittleEndianUInt64(at: 16),
                buttons: ButtonState(rawValue: bytes.loadLittleEndianUInt32(at: 24)),
                frame: frame))
    }

    /// The datagram whose header carried `streamID` and `sequence` and whose last 24 bytes (send time,
    /// buttons, frame: what a sealed form encrypts) are `payload`; nil if its frame is not valid.
    public static func decode(payload: UnsafeRawBufferPointer, streamID: UInt32, sequence: UInt64)
        -> AttitudeDatagram?
    {
        guard payload.count == byteCount - 16, let frame = AttitudeFrame.decode(payload, at: 12) else { return nil }
        return AttitudeDatagram(
            streamID: streamID, sequence: sequence, sentNanoseconds: payload.loadLittleEndianUInt64(at: 0),
            buttons: ButtonState(rawValue: payload.loadLittleEndianUInt32(at: 8)), frame: frame)
    }

    /// Decodes and validates one datagram held in an array.
    public static func decode(_ bytes: [UInt8]) -> Result<AttitudeDatagram, DecodingError> {
        bytes.withUnsafeBytes { decode($0) }
    }
}
