import Mouse3DCore

/// The four datagrams of a pairing (UDP, the pairing port). Each starts with the magic `M3`, the
/// version, a kind byte and the 16-byte session id the sender chose.
///
/// | kind | from | after the 20-byte header |
/// |---|---|---|
/// | 2 hello | sender | CPace element (32), sender public key (32), name length (1), name, zeros up to 192 bytes in all |
/// | 3 reply | receiver | CPace element (32), receiver public key (32), stream port (2, LE), ciphers (1: bit 0 ChaCha20-Poly1305, bit 1 AES-256-GCM), confirmation (32), name length (1), name |
/// | 4 confirm | sender | confirmation (32), one zero byte |
/// | 5 done | receiver | status (1: 0 paired, 1 wrong code, 2 busy), tag (32; zero unless paired) |
public enum PairingMessage: Sendable, Equatable {
    case hello(sid: [UInt8], share: [UInt8], publicKey: [UInt8], name: String)
    case reply(
        sid: [UInt8], share: [UInt8], publicKey: [UInt8], streamPort: UInt16, ciphers: UInt8, confirmation: [UInt8],
        name: String)
    case confirm(sid: [UInt8], confirmation: [UInt8])
    case done(sid: [UInt8], status: Status, tag: [UInt8])

    /// The receiver's verdict.
    public enum Status: UInt8, Sendable {
        case paired = 0, wrongCode = 1, busy = 2
    }

    /// Longest name, in UTF-8 bytes.
    public static let maximumNameBytes = 64
    static let headerBytes = 20
    /// A hello is padded to this size, larger than any reply (120 bytes and a name of at most 64):
    /// a receiver never answers a sender that has not proved it knows the code with more bytes
    /// than it was sent, so it cannot be used to amplify a spoofed flood.
    public static let helloBytes = 192
    /// A confirmation is padded to the size of the verdict that answers it.
    static let confirmBytes = 53

    /// The session id.
    public var sid: [UInt8] {
        switch self {
        case .hello(let sid, _, _, _), .reply(let sid, _, _, _, _, _, _), .confirm(let sid, _), .done(let sid, _, _):
            sid
        }
    }

    /// The encoded datagram.
    public var encoded: [UInt8] {
        var out: [UInt8] = [AttitudeDatagram.magic.0, AttitudeDatagram.magic.1, AttitudeDatagram.version]
        func name(_ s: String) -> [UInt8] {
            let bytes = Array(s.utf8.prefix(Self.maximumNameBytes))
            return [UInt8(bytes.count)] + bytes
        }
        switch self {
        case .hello(let sid, let share, let key, let n):
            out += [2] + sid + share + key + name(n)
            out += repeatElement(0, count: Self.helloBytes - out.count)
        case .reply(let sid, let share, let key, let port, let ciphers, let confirmation, let n):
            out += [3] + sid + share + key
            out.appendLittleEndian(port)
            out += [ciphers] + confirmation + name(n)
        case .confirm(let sid, let confirmation):
            out += [4] + sid + confirmation + [0]
        case .done(let sid, let status, let tag):
            out += [5] + sid + [status.rawValue] + tag
        }
        return out
    }

    /// Decodes a datagram; `nil` for anything malformed (wrong size, kind, lengths).
    public static func decode(_ bytes: [UInt8]) -> PairingMessage? {
        guard bytes.count >= headerBytes, bytes[0] == AttitudeDatagram.magic.0, bytes[1] == AttitudeDatagram.magic.1,
            bytes[2] == AttitudeDatagram.version
        else { return nil }
        let sid = Array(bytes[4..<20])
        func slice(_ start: Int, _ count: Int) -> [UInt8] { Array(bytes[start..<start + count]) }
        func name(at offset: Int) -> String? {
            guard bytes.count > offset else { return nil }
            let length = Int(bytes[offset])
            guard length <= maximumNameBytes, bytes.count == offset + 1 + length else { return nil }
            return String(decoding: bytes[(offset + 1)...], as: UTF8.self)
        }
        switch bytes[3] {
        case 2:
            guard bytes.count == helloBytes, Int(bytes[84]) <= maximumNameBytes else { return nil }
            let end = 85 + Int(bytes[84])
            guard bytes[end...].allSatisfy({ $0 == 0 }) else { return nil }
            return .hello(
                sid: sid, share: slice(20, 32), publicKey: slice(52, 32),
                name: String(decoding: bytes[85..<end], as: UTF8.self))
        case 3:
            guard bytes.count >= 120, let n = name(at: 119) else { return nil }
            let port = UInt16(bytes[84]) | UInt16(bytes[85]) << 8
            return .reply(
                sid: sid, share: slice(20, 32), publicKey: slice(52, 32), streamPort: port, ciphers: bytes[86],
                confirmation: slice(87, 32), name: n)
        case 4:
            guard bytes.count == confirmBytes, bytes[52] == 0 else { return nil }
            return .confirm(sid: sid, confirmation: slice(20, 32))
        case 5:
            guard bytes.count == 53, let status = Status(rawValue: bytes[20]) else { return nil }
            return .done(sid: sid, status: status, tag: slice(21, 32))
        default:
            return nil
        }
    }
}
