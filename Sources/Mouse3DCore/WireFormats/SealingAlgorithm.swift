/// The AEAD of a sealed datagram; its raw value is the datagram's kind byte.
public enum SealingAlgorithm: UInt8, Sendable, CaseIterable {
    /// ChaCha20-Poly1305 (RFC 8439): every peer has it.
    case chacha20Poly1305 = 1
    /// AES-256-GCM: used when both peers' CPUs have AES instructions (agreed when pairing).
    case aes256GCM = 2

    /// The name stored in key files and mixed into key derivation.
    public var name: String {
        switch self {
        case .chacha20Poly1305: "chacha20-poly1305"
        case .aes256GCM: "aes-256-gcm"
        }
    }

    /// The algorithm with that name.
    public init?(name: String) {
        guard let found = SealingAlgorithm.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
