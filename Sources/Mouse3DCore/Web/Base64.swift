/// Base64 (RFC 4648 §4, with padding), for the WebSocket handshake's key and accept values.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let b = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((b.count + 2) / 3 * 4)
        var i = 0
        while i < b.count {
            let n = min(3, b.count - i)
            let v = UInt32(b[i]) << 16 | (n > 1 ? UInt32(b[i + 1]) << 8 : 0) | (n > 2 ? UInt32(b[i + 2]) : 0)
            for k in 0..<4 { out.append(k <= n ? alphabet[Int(v >> UInt32(18 - 6 * k)) & 63] : UInt8(ascii: "=")) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil if it is not canonical padded base64.
    public static func decode(_ text: String) -> [UInt8]? {
        let t = Array(text.utf8)
        guard t.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < t.count {
            var v: UInt32 = 0
            var pad = 0
            for k in 0..<4 {
                let c = t[i + k]
                if c == UInt8(ascii: "=") && i + 4 == t.count && k >= 2 {
                    pad += 1
                    v <<= 6
                } else if let d = alphabet.firstIndex(of: c), pad == 0 {
                    v = v << 6 | UInt32(d)
                } else {
                    return nil
                }
            }
            out.append(UInt8(v >> 16))
            if pad < 2 { out.append(UInt8(v >> 8 & 0xFF)) }
            if pad < 1 { out.append(UInt8(v & 0xFF)) }
            i += 4
        }
        return encode(out) == text ? out : nil
    }
}
