import CSodium

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
