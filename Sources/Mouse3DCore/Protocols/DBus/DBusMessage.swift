/// One D-Bus message (the D-Bus Specification, "Message Protocol"): a fixed 12-byte start, the
/// header fields as `a(yv)`, padding to 8 and the body. Written in the body's byte order
/// (little-endian for what mouse3d makes); read in either order, with every length and required field checked (``decode(_:)``).
///
/// mouse3d speaks D-Bus only to reach the Avahi daemon on the system bus; it writes the protocol
/// itself rather than load libdbus, whose library chain (libsystemd, libgcrypt, liblzma, libzstd,
/// liblz4, libgpg-error, libcap) cost a receiver 1.2 MB of resident memory (README "Footprint").
public struct DBusMessage: Sendable, Equatable {
    /// The message types.
    public enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    public var kind: Kind
    /// `NO_REPLY_EXPECTED` is 1.
    public var flags: UInt8 = 0
    /// Non-zero; the sender numbers its messages.
    public var serial: UInt32 = 0
    public var path: String?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    public var replySerial: UInt32?
    public var destination: String?
    public var sender: String?
    /// The body's signature ("" for none).
    public var signature = ""
    /// The body, marshalled in ``bigEndian`` order.
    public var body: [UInt8] = []
    /// The order of the body's bytes (as sent; mouse3d writes little-endian).
    public var bigEndian = false

    /// The most mouse3d reads as one message: Avahi's replies and signals are a few hundred bytes.
    public static let maximumLength = 1 << 20

    /// A message of `kind`, to be filled in.
    public init(kind: Kind) { self.kind = kind }

    /// A method call of `member` on `path`'s `interface` at `destination`, with `body` of
    /// `signature`.
    public static func call(
        _ member: String, on path: String, interface: String, destination: String, signature: String = "",
        body: [UInt8] = []
    ) -> DBusMessage {
        var m = DBusMessage(kind: .methodCall)
        m.member = member
        m.path = path
        m.interface = interface
        m.destination = destination
        m.signature = signature
        m.body = body
        return m
    }

    /// A reader over the body.
    public var bodyReader: DBusReader { DBusReader(body, bigEndian: bigEndian) }

    /// The first string of an error's body: what went wrong, in the sender's words ("" if none).
    public var errorText: String {
        guard signature.hasPrefix("s") else { return "" }
        var r = bodyReader
        return (try? r.string()) ?? ""
    }

    /// The message's bytes, in the body's byte order.
    public func encoded() -> [UInt8] {
        var w = DBusWriter(bigEndian: bigEndian)
        w.byte(UInt8(ascii: bigEndian ? "B" : "l"))
        w.byte(kind.rawValue)
        w.byte(flags)
        w.byte(1)
        w.uint32(UInt32(body.count))
        w.uint32(serial)
        w.array(elementAlignment: 8) { w in
            func field(_ code: UInt8, _ type: String, _ value: (inout DBusWriter) -> Void) {
                w.structure { s in
                    s.byte(code)
                    s.variant(signature: type, value)
                }
            }
            if let path { field(1, "o") { $0.objectPath(path) } }
            if let interface { field(2, "s") { $0.string(interface) } }
            if let member { field(3, "s") { $0.string(member) } }
            if let errorName { field(4, "s") { $0.string(errorName) } }
            if let replySerial { field(5, "u") { $0.uint32(replySerial) } }
            if let destination { field(6, "s") { $0.string(destination) } }
            if let sender { field(7, "s") { $0.string(sender) } }
            if !signature.isEmpty { field(8, "g") { $0.signature(signature) } }
        }
        w.pad(to: 8)
        return w.bytes + body
    }

    /// The specification's limit on a message's length (2^27 bytes).
    public static let specificationLimit = 1 << 27

    /// The length of the message that `bytes` start with, once its first 16 bytes are there (nil
    /// before); throws if they cannot start a message (another byte order mark or version, or over
    /// the specification's 128 MiB). A reader skips one longer than ``maximumLength``.
    public static func length(of bytes: ArraySlice<UInt8>) throws(DBusFormatError) -> Int? {
        guard bytes.count >= 16 else { return nil }
        let start = bytes.startIndex
        let big: Bool
        switch bytes[start] {
        case UInt8(ascii: "l"): big = false
        case UInt8(ascii: "B"): big = true
        default: throw .invalid("an unknown byte order")
        }
        guard bytes[start + 3] == 1 else { throw .invalid("protocol version \(bytes[start + 3])") }
        func u32(_ at: Int) -> Int {
            let b = bytes[(start + at)..<(start + at + 4)].map(UInt32.init)
            return Int(big ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0])
        }
        let bodyLength = u32(4)
        let fieldsLength = u32(12)
        guard bodyLength <= specificationLimit, fieldsLength <= specificationLimit else {
            throw .invalid("a length over the specification's \(specificationLimit) bytes")
        }
        let total = ((16 + fieldsLength + 7) & ~7) + bodyLength
        guard total <= specificationLimit else {
            throw .invalid("a length over the specification's \(specificationLimit) bytes")
        }
        return total
    }

    /// Decodes one whole message (``length(of:)`` bytes), checking its fields: the types the
    /// specification gives them, and those each kind of message requires.
    public static func decode(_ bytes: [UInt8]) throws(DBusFormatError) -> DBusMessage {
        guard let total = try length(of: bytes[...]), total == bytes.count else { throw .truncated }
        guard total <= maximumLength else { throw .invalid("a length over \(maximumLength) bytes") }
        let big = bytes[0] == UInt8(ascii: "B")
        var r = DBusReader(bytes, offset: 1, bigEndian: big)
        guard let kind = Kind(rawValue: try r.byte()) else { throw .invalid("an unknown message type") }
        var m = DBusMessage(kind: kind)
        m.bigEndian = big
        m.flags = try r.byte()
        _ = try r.byte()  // the version, checked by length(of:)
        let bodyLength = Int(try r.uint32())
        m.serial = try r.uint32()
        guard m.serial != 0 else { throw .invalid("serial 0") }
        var seen = Set<UInt8>()
        try r.array(elementAlignment: 8) { (r: inout DBusReader) throws(DBusFormatError) in
            try r.align(8)
            let code = try r.byte()
            guard seen.insert(code).inserted else { throw .invalid("header field \(code) twice") }
            let type = try r.signature()
            func expect(_ wanted: String) throws(DBusFormatError) {
                guard type == wanted else { throw .invalid("header field \(code) of type '\(type)'") }
            }
            switch code {
            case 1:
                try expect("o")
                m.path = try r.objectPath()
            case 2:
                try expect("s")
                m.interface = try r.string()
            case 3:
                try expect("s")
                m.member = try r.string()
            case 4:
                try expect("s")
                m.errorName = try r.string()
            case 5:
                try expect("u")
                m.replySerial = try r.uint32()
            case 6:
                try expect("s")
                m.destination = try r.string()
            case 7:
                try expect("s")
                m.sender = try r.string()
            case 8:
                try expect("g")
                m.signature = try r.signature()
            default:
                // Unknown fields (UNIX_FDS among them) are skipped, as the specification asks.
                try r.skip(signature: type)
            }
        }
        try r.align(8)
        guard bytes.count - r.offset == bodyLength else { throw .invalid("a body of the wrong length") }
        m.body = Array(bytes[r.offset...])
        switch kind {
        case .methodCall:
            guard m.path != nil, m.member != nil else { throw .invalid("a method call without path or member") }
        case .signal:
            guard m.path != nil, m.interface != nil, m.member != nil else {
                throw .invalid("a signal without path, interface or member")
            }
        case .error:
            guard m.errorName != nil, m.replySerial != nil else {
                throw .invalid("an error without name or reply serial")
            }
        case .methodReturn:
            guard m.replySerial != nil else { throw .invalid("a reply without reply serial") }
        }
        return m
    }
}
