import Mouse3DCore
import Mouse3DLinux

/// A peer this machine has paired with, as stored in its key file.
public struct PairedPeer: Sendable, Equatable {
    /// What the peer is to this machine.
    public enum Role: String, Sendable {
        /// It sends to us (stored by a receiver).
        case sender
        /// We send to it (stored by a sender).
        case receiver

        /// The folder of such peers inside the configuration directory.
        var folder: String { self == .sender ? "senders" : "receivers" }
    }

    /// What the peer is to us.
    public var role: Role
    /// Its name, as it gave it when pairing.
    public var name: String
    /// Its public key.
    public var publicKey: [UInt8]
    /// The secret both sides derived when pairing (32 bytes).
    public var secret: [UInt8]
    /// For receivers: where to stream, `HOST:PORT` as the user gave the host.
    public var address: String?
    /// For receivers: the last epoch this sender used. For senders: the newest epoch seen.
    public var epoch: UInt32
    /// When the pairing was made (UTC, ISO 8601).
    public var pairedAt: String
    /// For senders: the next sequence number their stored epoch may use (what this receiver saw).
    public var nextSequence: UInt64 = 0
    /// For receivers: the AEAD agreed when pairing (AES-256-GCM when both CPUs have AES instructions).
    public var algorithm: SealingAlgorithm = .chacha20Poly1305

    /// Creates a record.
    public init(
        role: Role, name: String, publicKey: [UInt8], secret: [UInt8], address: String?, epoch: UInt32, pairedAt: String
    ) {
        self.role = role
        self.name = name
        self.publicKey = publicKey
        self.secret = secret
        self.address = address
        self.epoch = epoch
        self.pairedAt = pairedAt
    }

    /// The 8-byte id.
    public var id: [UInt8] { PeerIdentity.id(of: publicKey) }
    /// `xxxx-xxxx-xxxx-xxxx`.
    public var fingerprint: String { PeerIdentity.fingerprint(of: publicKey) }

    /// The key file's text.
    var fileText: String {
        var entries: [(String, KeyValueText.Value)] = [
            ("name", .string(name)),
            ("fingerprint", .string(fingerprint)),
            ("public_key", .string(Hexadecimal.encode(publicKey))),
            ("secret", .string(Hexadecimal.encode(secret)))
        ]
        if let address { entries.append(("address", .string(address))) }
        if role == .receiver { entries.append(("cipher", .string(algorithm.name))) }
        entries.append(("paired_at", .string(pairedAt)))
        return KeyValueText.render(
            comment: [
                "mouse3d paired \(role.rawValue). Secret: keep it mode 0600. Revoke with `mouse3d pair --revoke \(fingerprint)`."
            ],
            entries)
    }

    /// The state file's text: the session counters, kept apart from the key so that storing them
    /// can never bring back a revoked pairing.
    var stateText: String {
        KeyValueText.render(
            comment: ["mouse3d session state of paired \(role.rawValue) '\(name)'; removed with its key."],
            [
                ("epoch", .integer(Int64(epoch))), ("next_sequence", .integer(Int64(truncatingIfNeeded: nextSequence))),
                ("pairing", .string(pairingTag))
            ])
    }

    /// Names this pairing (not the peer: pairing the same peer again gives a new one) in its state
    /// file: the first 8 bytes of HMAC-SHA256(secret, "mouse3d session state"), in hexadecimal. It
    /// reveals nothing of the secret.
    var pairingTag: String {
        Hexadecimal.encode(
            Array(HMACSHA256.authenticationCode(for: Array("mouse3d session state".utf8), key: secret).prefix(8)))
    }

    /// Applies a state file's text. A state written for an earlier pairing of the same peer (a store
    /// still in flight when it was revoked and paired again) is ignored: this pairing starts afresh,
    /// which is safe because the earlier pairing's datagrams do not open under this one's secret.
    /// Returns false when it was ignored so.
    @discardableResult
    mutating func applyState(_ text: String, path: String) throws(KeyValueText.ParseError) -> Bool {
        let document = try KeyValueText.parse(text, file: path)
        if document.entries["pairing"] != nil, try document.string("pairing") != pairingTag { return false }
        let e = try document.integer("epoch", default: 0)
        guard e >= 0 && e <= Int64(UInt32.max) else {
            throw KeyValueText.ParseError(
                file: path, line: document.entries["epoch"]?.line ?? 0, message: "epoch out of range")
        }
        epoch = UInt32(e)
        nextSequence = UInt64(truncatingIfNeeded: try document.integer("next_sequence", default: 0))
        return true
    }

    /// Reads a record from its file text.
    init(role: Role, fileText: String, path: String) throws(KeyValueText.ParseError) {
        let document = try KeyValueText.parse(fileText, file: path)
        self.role = role
        name = TerminalText.escaped(try document.string("name"))  // a file from before names were escaped
        publicKey = try document.hex("public_key", count: 32)
        secret = try document.hex("secret", count: 32)
        address = role == .receiver ? try document.string("address") : nil
        epoch = 0
        if role == .receiver, document.entries["cipher"] != nil {
            let name = try document.string("cipher")
            guard let found = SealingAlgorithm(name: name) else {
                throw KeyValueText.ParseError(
                    file: path, line: document.entries["cipher"]?.line ?? 0,
                    message:
                        "cipher '\(name)' is not one of \(SealingAlgorithm.allCases.map(\.name).joined(separator: ", "))"
                )
            }
            algorithm = found
        }
        pairedAt = (try? document.string("paired_at")) ?? "unknown"
    }
}
