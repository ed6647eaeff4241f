import CSodium

/// HMAC-SHA256 with a key of any length (libsodium's `crypto_auth_hmacsha256_init/update/final`).
public enum HMACSHA256 {
    /// Bytes in a tag.
    public static let byteCount = Int(crypto_auth_hmacsha256_BYTES)

    /// The tag of `message` under `key`.
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { authenticationCode(for: $0, key: key) }
    }

    /// The tag of the bytes in `message` under `key`.
    public static func authenticationCode(for message: UnsafeRawBufferPointer, key: [UInt8]) -> [UInt8] {
        precondition(Sodium.ready, "libsodium failed to initialise")
        var state = crypto_auth_hmacsha256_state()
        var out = [UInt8](repeating: 0, count: byteCount)
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        _ = crypto_auth_hmacsha256_update(
            &state, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &out)
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        return out
    }
}
