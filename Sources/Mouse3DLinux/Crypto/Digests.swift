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
        _ = crypto_auth_hmacsha256_update(&state, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &out)
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        return out
    }
}

/// HKDF with HMAC-SHA256 (RFC 5869): extract, then expand. An absent salt is HashLen zero bytes,
/// which HMAC treats exactly as an empty key.
public enum HKDFSHA256 {
    /// `count` bytes (at most 255 × 32) of output keying material.
    public static func deriveKey(inputKeyMaterial: [UInt8], salt: [UInt8] = [], info: [UInt8], count: Int) -> [UInt8] {
        precondition(count > 0 && count <= 255 * HMACSHA256.byteCount, "HKDF output is 1 to 8160 bytes")
        let pseudorandomKey = HMACSHA256.authenticationCode(for: inputKeyMaterial, key: salt)
        var output: [UInt8] = [], block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < count {
            block = HMACSHA256.authenticationCode(for: block + info + [counter], key: pseudorandomKey)
            output += block
            counter &+= 1
        }
        return Array(output.prefix(count))
    }
}

/// An X25519 key pair (RFC 7748; libsodium's `crypto_scalarmult`). The private key is 32 random
/// bytes, clamped when used, stored as is: the same representation swift-crypto's
/// `Curve25519.KeyAgreement.PrivateKey.rawRepresentation` has, so identities stay readable.
public struct X25519PrivateKey: Sendable {
    /// The 32 private bytes.
    public let rawRepresentation: [UInt8]
    /// The public key, 32 bytes.
    public let publicKey: [UInt8]

    /// A new random key.
    public init() {
        precondition(Sodium.ready, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, 32)
        self.init(checked: bytes)
    }

    /// The key in `rawRepresentation` (32 bytes), or nil.
    public init?(rawRepresentation: [UInt8]) {
        guard rawRepresentation.count == 32 else { return nil }
        self.init(checked: rawRepresentation)
    }

    private init(checked bytes: [UInt8]) {
        precondition(Sodium.ready, "libsodium failed to initialise")
        rawRepresentation = bytes
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_scalarmult_base(&out, bytes)
        publicKey = out
    }

    /// The shared secret with `peerPublicKey` (32 bytes); nil for a wrong length or a low-order
    /// point, whose result would be all zeros (libsodium refuses it).
    public func sharedSecret(with peerPublicKey: [UInt8]) -> [UInt8]? {
        guard peerPublicKey.count == 32 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        guard crypto_scalarmult(&out, rawRepresentation, peerPublicKey) == 0 else { return nil }
        return out
    }
}

/// libsodium, initialised once for every user in this module.
enum Sodium {
    static let ready: Bool = sodium_init() >= 0
}
