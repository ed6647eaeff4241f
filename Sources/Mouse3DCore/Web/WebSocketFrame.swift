/// WebSocket framing (RFC 6455 §5) for a server that pushes text and reads little: frames to the
/// browser are single, unmasked and final; frames from it must be masked and small (the page sends
/// nothing but close and pong), so a peer cannot make the server hold more than
/// ``maximumClientPayload`` bytes for it.
public enum WebSocketFrame {
    /// The largest payload taken from a client, in bytes.
    public static let maximumClientPayload = 4096
    /// The GUID a server appends to the client's key to prove it speaks WebSocket (§1.3).
    public static let handshakeGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Frame types (§5.2).
    public enum Opcode: UInt8, Sendable {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10

        /// Whether it is a control frame (close, ping, pong).
        public var isControl: Bool { rawValue >= 8 }
    }

    /// One final, unmasked frame of `opcode` with `payload`, as a server sends it.
    public static func encode(_ opcode: Opcode, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode.rawValue]
        let n = payload.count
        out.reserveCapacity(n + 10)
        if n < 126 {
            out.append(UInt8(n))
        } else if n <= 0xFFFF {
            out += [126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF)) }
        }
        out += payload
        return out
    }

    /// A close frame with `code` (1000 normal, 1008 policy, 1009 too big...).
    public static func close(_ code: UInt16) -> [UInt8] { encode(.close, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    /// What reading a client's frame from the bytes received so far gives.
    public enum Decoded: Sendable, Equatable {
        /// Not all of it yet.
        case incomplete
        /// A frame: its opcode, its unmasked payload, whether it is final, and how many bytes it took.
        case frame(Opcode, payload: [UInt8], final: Bool, length: Int)
        /// Not a frame a client may send (unmasked, reserved bits or opcodes, too large); the
        /// connection is closed with this code (§7.4.1) and the reason counted.
        case invalid(code: UInt16, reason: String)
    }

    /// A client frame's header, read where it starts in a buffer, and where its payload lies.
    public struct Header: Sendable, Equatable {
        /// The frame's type.
        public var opcode: Opcode
        /// Whether it is the last frame of its message.
        public var final: Bool
        /// Where the (masked) payload starts, as an offset into the buffer, and its length.
        public var payloadStart: Int, payloadLength: Int
        /// The masking key (§5.3), as the four bytes read in order.
        public var mask: (UInt8, UInt8, UInt8, UInt8)
        /// The offset just past the frame.
        public var end: Int { payloadStart + payloadLength }

        public static func == (a: Header, b: Header) -> Bool {
            a.opcode == b.opcode && a.final == b.final && a.payloadStart == b.payloadStart
                && a.payloadLength == b.payloadLength
                && a.mask == b.mask
        }
    }

    /// What reading a client frame's header gives.
    public enum HeaderOutcome: Sendable, Equatable {
        /// Not all of the header and payload yet.
        case incomplete
        /// A whole frame is there.
        case header(Header)
        /// Not a frame a client may send; the connection is closed with this code.
        case invalid(code: UInt16, reason: String)
    }

    /// Reads the header of the client frame that starts at `offset` in `bytes`, without copying:
    /// a server walks a buffer of many frames by offset and unmasks only the payloads it keeps
    /// (see ``unmask(_:_:)``).
    public static func decodeClientHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> HeaderOutcome {
        let available = bytes.count - offset
        guard available >= 2 else { return .incomplete }
        let b0 = bytes[offset]
        let b1 = bytes[offset + 1]
        let final = b0 & 0x80 != 0
        guard b0 & 0x70 == 0 else { return .invalid(code: 1002, reason: "reserved bits set") }
        guard let opcode = Opcode(rawValue: b0 & 0x0F) else { return .invalid(code: 1002, reason: "unknown opcode") }
        guard b1 & 0x80 != 0 else { return .invalid(code: 1002, reason: "unmasked client frame") }
        var length = Int(b1 & 0x7F)
        var header = 2
        if length == 126 {
            guard available >= 4 else { return .incomplete }
            length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return .incomplete }
            var n: UInt64 = 0
            for k in 2..<10 { n = n << 8 | UInt64(bytes[offset + k]) }
            guard n <= UInt64(maximumClientPayload) else {
                return .invalid(code: 1009, reason: "client frame too large")
            }
            length = Int(n)
            header = 10
        }
        if opcode.isControl {
            guard final && length <= 125 else { return .invalid(code: 1002, reason: "bad control frame") }
        }
        guard length <= maximumClientPayload else { return .invalid(code: 1009, reason: "client frame too large") }
        guard available >= header + 4 + length else { return .incomplete }
        let m = offset + header
        return .header(
            Header(
                opcode: opcode, final: final, payloadStart: m + 4, payloadLength: length,
                mask: (bytes[m], bytes[m + 1], bytes[m + 2], bytes[m + 3])))
    }

    /// The payload of `header`'s frame in `bytes`, unmasked.
    public static func unmask(_ header: Header, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let mask = [header.mask.0, header.mask.1, header.mask.2, header.mask.3]
        return (0..<header.payloadLength).map { bytes[header.payloadStart + $0] ^ mask[$0 & 3] }
    }

    /// Reads one client frame from the start of `bytes`, its payload unmasked (for tests and the
    /// fuzzer; the server walks its buffer with ``decodeClientHeader(_:at:)``).
    public static func decodeClientFrame(_ bytes: some Collection<UInt8>) -> Decoded {
        let b = Array(bytes.prefix(14 + maximumClientPayload))
        return b.withUnsafeBytes { raw in
            switch decodeClientHeader(raw, at: 0) {
            case .incomplete: return .incomplete
            case .invalid(let code, let reason): return .invalid(code: code, reason: reason)
            case .header(let h): return .frame(h.opcode, payload: unmask(h, raw), final: h.final, length: h.end)
            }
        }
    }
}
