import CSodium

/// HKDF with HMAC-SHA256 (RFC 5869): extract, then expand. An absent salt is HashLen zero bytes,
/// which HMAC treats exactly as an empty key.
public enum HKDFSHA256 {
    /// `count` bytes (at most 255 × 32) of output keying material.
    public static func deriveKey(inputKeyMaterial: [UInt8], salt: [UInt8] = [], info: [UInt8], count: Int) -> [UInt8] {
        precondition(count > 0 && count <= 255 * HMACSHA256.byteCount, "HKDF output is 1 to 8160 bytes")
        let pseudorandomKey = HMACSHA256.authenticationCode(for: inputKeyMaterial, key: salt)
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < count {
            block = HMACSHA256.authenticationCode(for: block + info + [counter], key: pseudorandomKey)
            output += block
            counter &+= 1
        }
        return Array(output.prefix(count))
    }
}
