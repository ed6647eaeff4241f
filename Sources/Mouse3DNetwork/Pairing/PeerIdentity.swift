import Mouse3DCore
import Mouse3DLinux

/// This machine's identity: an X25519 key pair made on first use and kept in the user's
/// configuration directory (mode 0600). Peers know it by its fingerprint.
public struct PeerIdentity: Sendable {
    /// A human name for this machine (the host name when created).
    public let name: String
    /// The private key.
    let privateKey: X25519PrivateKey
    /// The public key, 32 bytes.
    public let publicKey: [UInt8]

    init(name: String, privateKey: X25519PrivateKey) {
        self.name = name
        self.privateKey = privateKey
        publicKey = privateKey.publicKey
    }

    /// A new identity that is not stored (tests, benchmarks).
    public static func generate(name: String) -> PeerIdentity { PeerIdentity(name: name, privateKey: .init()) }

    /// The 8-byte id peers use for this identity (on the wire, in file names).
    public var id: [UInt8] { PeerIdentity.id(of: publicKey) }
    /// The id as `xxxx-xxxx-xxxx-xxxx`.
    public var fingerprint: String { PeerIdentity.fingerprint(of: publicKey) }

    /// The id of a public key: the first 8 bytes of its SHA-256.
    public static func id(of publicKey: [UInt8]) -> [UInt8] { Array(Digest.sha256.hash(publicKey).prefix(8)) }

    /// The fingerprint of a public key, `xxxx-xxxx-xxxx-xxxx`.
    public static func fingerprint(of publicKey: [UInt8]) -> String {
        let hex = Array(Hexadecimal.encode(id(of: publicKey)))
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The X25519 shared secret with a peer's public key.
    func staticSecret(with peerPublicKey: [UInt8]) throws -> [UInt8] {
        guard let secret = privateKey.sharedSecret(with: peerPublicKey) else { throw InvalidPublicKey() }
        return secret
    }

    /// A peer's public key that is not 32 bytes or is a low-order point (the shared secret would be zero).
    struct InvalidPublicKey: Error, CustomStringConvertible {
        var description: String { "the peer's public key is not a valid X25519 key" }
    }

    /// The identity file inside `directory`.
    public static func path(in directory: String) -> String { directory + "/identity.key" }

    /// Loads the identity from `directory`, creating it (and the directory) on first use.
    public static func loadOrCreate(in directory: String) throws -> (identity: PeerIdentity, created: Bool) {
        let path = path(in: directory)
        try SecretFile.checkFolder(directory)
        if let bytes = try SecretFile.read(path: path) {
            let document = try KeyValueText.parse(String(decoding: bytes, as: UTF8.self), file: path)
            let key = try document.hex("private_key", count: 32)
            let name = try document.string("name")  // sent as it is (the peer escapes what it shows); shown escaped
            guard let privateKey = X25519PrivateKey(rawRepresentation: key) else {
                throw KeyValueText.ParseError(file: path, line: 0, message: "private_key is not an X25519 key")
            }
            return (PeerIdentity(name: name, privateKey: privateKey), false)
        }
        let identity = PeerIdentity(
            name: String(FileSystem.hostName.prefix(PairingMessage.maximumNameBytes)), privateKey: .init())
        try SecretFile.makeDirectory(directory)
        let text = KeyValueText.render(
            comment: ["mouse3d identity of this machine. Secret: keep it mode 0600 and never share it."],
            [
                ("name", .string(identity.name)),
                ("private_key", .string(Hexadecimal.encode(identity.privateKey.rawRepresentation))),
                ("fingerprint", .string(identity.fingerprint))
            ])
        try SecretFile.write(path: path, bytes: Array(text.utf8))
        return (identity, true)
    }
}
