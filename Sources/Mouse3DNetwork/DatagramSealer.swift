import Crypto
import Mouse3DCore

/// Session keys of sealed streams: HKDF-SHA256 of the pairing secret, per epoch and generation, bound
/// to both ids. A sender never reuses an epoch with one receiver (it is stored before use), and the
/// sequence number never repeats within an epoch, so no (key, nonce) pair is ever used twice.
enum SessionKey {
    static func derive(secret: [UInt8], senderID: [UInt8], receiverID: [UInt8], epoch: UInt32, generation: UInt64) -> SymmetricKey {
        var info = Array("mouse3d v1 frames".utf8) + senderID + receiverID
        info.appendLittleEndian(epoch)
        info.appendLittleEndian(generation)
        return HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), info: info, outputByteCount: 32)
    }

    /// The ChaCha20-Poly1305 nonce of a sequence number: four zero bytes, then the counter (LE).
    static func nonce(_ sequence: UInt64) -> ChaChaPoly.Nonce {
        var bytes: [UInt8] = [0, 0, 0, 0]
        bytes.appendLittleEndian(sequence)
        return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes: always valid
    }
}

/// Seals plain datagrams for one paired receiver (kind 1; see ``SealedDatagramLayout``).
public struct DatagramSealer: Sendable {
    private let secret: [UInt8]
    private let senderID: [UInt8]
    private let receiverID: [UInt8]
    /// The epoch of this run.
    public let epoch: UInt32
    private var generation: UInt64 = .max
    private var key = SymmetricKey(size: .bits256)

    /// A sealer for the pairing `secret` between two ids, in `epoch`.
    public init(secret: [UInt8], senderID: [UInt8], receiverID: [UInt8], epoch: UInt32) {
        self.secret = secret
        self.senderID = senderID
        self.receiverID = receiverID
        self.epoch = epoch
    }

    /// Seals a 40-byte plain datagram into 68 bytes written to `out` (replacing its contents).
    public mutating func seal(_ plain: [UInt8], into out: inout [UInt8]) throws {
        precondition(plain.count == AttitudeDatagram.byteCount)
        let sequence = plain.withUnsafeBytes { $0.loadLittleEndianUInt64(at: 8) }
        let g = SealedDatagramLayout.generation(of: sequence)
        if g != generation {
            key = SessionKey.derive(secret: secret, senderID: senderID, receiverID: receiverID, epoch: epoch, generation: g)
            generation = g
        }
        out.removeAll(keepingCapacity: true)
        out += plain[0..<16]
        out[3] = SealedDatagramLayout.kind
        out += senderID
        out.appendLittleEndian(epoch)
        let box = try ChaChaPoly.seal(plain[16..<40], using: key, nonce: SessionKey.nonce(sequence), authenticating: out)
        out += box.ciphertext
        out += box.tag
    }
}
