/// A link-quality probe between a paired sender and a receiver, and its echo: the sender (or
/// `mouse3d peers`) sends a request to the receiver's stream port and times the reply.
///
/// Layout (integers little-endian), 56 bytes, the same both ways (an echo never amplifies):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | magic `M3` |
/// | 2 | 1 | version, 1 |
/// | 3 | 1 | kind: 6 request, 7 reply |
/// | 4 | 8 | request: the sender's id; reply: the receiver's id |
/// | 12 | 16 | challenge, random per request, echoed |
/// | 28 | 8 | the requester's monotonic clock at sending, ns, echoed |
/// | 36 | 4 | reply: frames the receiver accepted from this sender in its current session (wrapping); request: 0 |
/// | 40 | 16 | tag: HMAC-SHA256 of bytes 0–39 under the pair's probe key, first 16 bytes |
///
/// The tag is computed by the network layer; this type only places the fields.
public struct LinkProbe: Sendable, Equatable {
    /// A request or its reply.
    public var isReply: Bool
    /// The id of whoever sent this probe.
    public var id: [UInt8]
    /// The request's challenge.
    public var challenge: [UInt8]
    /// The requester's clock at sending.
    public var sentNanoseconds: UInt64
    /// In a reply: frames accepted from the requester in its current session (wrapping).
    public var framesAccepted: UInt32

    /// The kind byte of a request.
    public static let requestKind: UInt8 = 6
    /// The kind byte of a reply.
    public static let replyKind: UInt8 = 7
    /// Bytes covered by the tag.
    public static let authenticatedBytes = 40
    /// Tag bytes.
    public static let tagBytes = 16
    /// The size of a probe on the wire.
    public static let byteCount = authenticatedBytes + tagBytes

    /// Creates a probe.
    public init(isReply: Bool, id: [UInt8], challenge: [UInt8], sentNanoseconds: UInt64, framesAccepted: UInt32 = 0) {
        precondition(id.count == 8 && challenge.count == 16, "8-byte id, 16-byte challenge")
        self.isReply = isReply
        self.id = id
        self.challenge = challenge
        self.sentNanoseconds = sentNanoseconds
        self.framesAccepted = framesAccepted
    }

    /// The 40 authenticated bytes (the tag goes after them).
    public var authenticatedPart: [UInt8] {
        var bytes: [UInt8] = [
            AttitudeDatagram.magic.0, AttitudeDatagram.magic.1, AttitudeDatagram.version,
            isReply ? Self.replyKind : Self.requestKind
        ]
        bytes.reserveCapacity(Self.byteCount)
        bytes += id
        bytes += challenge
        bytes.appendLittleEndian(sentNanoseconds)
        bytes.appendLittleEndian(framesAccepted)
        return bytes
    }

    /// Whether `bytes` has a probe's size, header and the given kind (before the tag is checked).
    public static func looksLike(_ bytes: UnsafeRawBufferPointer, kind: UInt8) -> Bool {
        bytes.count == byteCount && bytes[0] == AttitudeDatagram.magic.0 && bytes[1] == AttitudeDatagram.magic.1
            && bytes[2] == AttitudeDatagram.version && bytes[3] == kind
    }

    /// Reads the fields of a probe of the right size and header (the tag is not checked here).
    public static func fields(of bytes: UnsafeRawBufferPointer) -> LinkProbe? {
        guard looksLike(bytes, kind: requestKind) || looksLike(bytes, kind: replyKind) else { return nil }
        return LinkProbe(
            isReply: bytes[3] == replyKind, id: Array(bytes[4..<12]), challenge: Array(bytes[12..<28]),
            sentNanoseconds: bytes.loadLittleEndianUInt64(at: 28), framesAccepted: bytes.loadLittleEndianUInt32(at: 36))
    }
}
