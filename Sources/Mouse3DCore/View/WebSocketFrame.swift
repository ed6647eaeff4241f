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

    /// Reads one client frame from the start of `bytes`.
    public static func decodeClientFrame(_ bytes: some Collection<UInt8>) -> Decoded {
        let b = Array(bytes.prefix(14 + maximumClientPayload))
        guard b.count >= 2 else { return .incomplete }
        let final = b[0] & 0x80 != 0
        guard b[0] & 0x70 == 0 else { return .invalid(code: 1002, reason: "reserved bits set") }
        guard let opcode = Opcode(rawValue: b[0] & 0x0F) else { return .invalid(code: 1002, reason: "unknown opcode") }
        guard b[1] & 0x80 != 0 else { return .invalid(code: 1002, reason: "unmasked client frame") }
        var length = Int(b[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard b.count >= 4 else { return .incomplete }
            length = Int(b[2]) << 8 | Int(b[3])
            offset = 4
        } else if length == 127 {
            guard b.count >= 10 else { return .incomplete }
            var n: UInt64 = 0
            for k in 2..<10 { n = n << 8 | UInt64(b[k]) }
            guard n <= UInt64(maximumClientPayload) else { return .invalid(code: 1009, reason: "client frame too large") }
            length = Int(n)
            offset = 10
        }
        if opcode.isControl { guard final && length <= 125 else { return .invalid(code: 1002, reason: "bad control frame") } }
        guard length <= maximumClientPayload else { return .invalid(code: 1009, reason: "client frame too large") }
        guard b.count >= offset + 4 + length else { return .incomplete }
        let mask = Array(b[offset..<offset + 4])
        let start = offset + 4
        var payload = [UInt8](repeating: 0, count: length)
        for k in 0..<length { payload[k] = b[start + k] ^ mask[k & 3] }
        return .frame(opcode, payload: payload, final: final, length: start + length)
    }
}
