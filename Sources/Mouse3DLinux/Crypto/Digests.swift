import CSodium

/// SHA-256, SHA-512, HMAC-SHA256 (RFC 2104), HKDF-SHA256 (RFC 5869) and X25519 (RFC 7748), through
/// libsodium, the library that already seals the frames. They replace swift-crypto in the product:
/// that package brings the whole of Foundation (ICU's 37 MB of data among it) into a static binary,
/// and its start-up touches megabytes of pages a 1 kHz stream never needs. The tests check each
/// against swift-crypto and the RFCs' vectors.
public enum Digest: Sendable {
    case sha256, sha512

    /// Bytes in a digest.
    public var byteCount: Int { Int(self == .sha256 ? crypto_hash_sha256_BYTES : crypto_hash_sha512_BYTES) }

    /// The digest of `bytes`.
    public func hash(_ bytes: [UInt8]) -> [UInt8] {
        precondition(Sodium.ready, "libsodium failed to initialise")
        var out = [UInt8](repeating: 0, count: byteCount)
        switch self {
        case .sha256: _ = crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
        case .sha512: _ = crypto_hash_sha512(&out, bytes, UInt64(bytes.count))
        }
        return out
    }
}

/// libsodium, initialised once for every user in this module.
enum Sodium {
    static let ready: Bool = sodium_init() >= 0
}
