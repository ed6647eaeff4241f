import Mouse3DCore
import Mouse3DLinux

/// Session keys of sealed streams: HKDF-SHA256 of the pairing secret, per epoch, stream and
/// generation, bound to both ids. Two guards keep a (key, nonce) pair from ever being used twice:
/// a sender takes a new epoch for every run, stored durably under a lock before use, and every run
/// draws a random stream id that is part of the key, so even two runs that somehow share an epoch
/// (a state file deleted or restored, a copied identity) seal under different keys. Within a key
/// the nonce is the sequence number, which never repeats.
enum SessionKey {
    static func derive(
        secret: [UInt8], algorithm: SealingAlgorithm, senderID: [UInt8], receiverID: [UInt8], epoch: UInt32,
        streamID: UInt32,
        generation: UInt64
    ) -> [UInt8] {
        // The algorithm is part of the derivation: one key is never used with two ciphers.
        var info = Array("mouse3d v2 frames \(algorithm.name)".utf8) + senderID + receiverID
        info.appendLittleEndian(epoch)
        info.appendLittleEndian(streamID)
        info.appendLittleEndian(generation)
        return HKDFSHA256.deriveKey(inputKeyMaterial: secret, info: info, count: 32)
    }

    /// Writes the nonce of a sequence number into `nonce` (12 bytes): four zero bytes, then the
    /// counter, little-endian (as WireGuard does).
    static func write(sequence: UInt64, into nonce: inout [UInt8]) {
        nonce.withUnsafeMutableBytes { write(sequence: sequence, into: $0) }
    }

    /// The same, into 12 bytes of memory.
    static func write(sequence: UInt64, into nonce: UnsafeMutableRawBufferPointer) {
        nonce.storeBytes(of: 0, toByteOffset: 0, as: UInt32.self)
        nonce.storeBytes(of: sequence.littleEndian, toByteOffset: 4, as: UInt64.self)
    }
}

/// Seals plain datagrams for one paired receiver (kind 1 or 2; see ``SealedDatagramLayout``).
public struct DatagramSealer {
    private let secret: [UInt8]
    private let senderID: [UInt8]
    private let receiverID: [UInt8]
    /// The epoch of this run.
    public let epoch: UInt32
    /// The AEAD.
    public let algorithm: SealingAlgorithm
    private var generation: UInt64 = .max
    private var streamID: UInt32 = 0
    private var cipher: FrameCipher?
    private var nonce = [UInt8](repeating: 0, count: 12)

    /// A sealer for the pairing `secret` between two ids, in `epoch`, with `algorithm` (which this
    /// CPU must support: see ``FrameCipher/aes256GCMAvailable``).
    public init(
        secret: [UInt8], senderID: [UInt8], receiverID: [UInt8], epoch: UInt32,
        algorithm: SealingAlgorithm = .chacha20Poly1305
    ) {
        self.secret = secret
        self.algorithm = algorithm
        self.senderID = senderID
        self.receiverID = receiverID
        self.epoch = epoch
    }

    /// Seals a 40-byte plain datagram into 68 bytes written to `out` (replacing its contents).
    public mutating func seal(_ plain: [UInt8], into out: inout [UInt8]) {
        precondition(plain.count == AttitudeDatagram.byteCount)
        let sequence = plain.withUnsafeBytes { $0.loadLittleEndianUInt64(at: 8) }
        let stream = plain.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        }
        let g = SealedDatagramLayout.generation(of: sequence)
        if g != generation || stream != streamID || cipher == nil {
            cipher = FrameCipher(
                algorithm: algorithm,
                key: SessionKey.derive(
                    secret: secret, algorithm: algorithm, senderID: senderID, receiverID: receiverID, epoch: epoch,
                    streamID: stream,
                    generation: g))
            generation = g
            streamID = stream
        }
        let cipher = cipher!
        SessionKey.write(sequence: sequence, into: &nonce)
        out.removeAll(keepingCapacity: true)
        out += plain[0..<16]
        out[3] = algorithm.rawValue
        out += senderID
        out.appendLittleEndian(epoch)
        out += repeatElement(0, count: SealedDatagramLayout.payloadBytes + SealedDatagramLayout.tagBytes)
        let header = SealedDatagramLayout.headerBytes
        let tagStart = header + SealedDatagramLayout.payloadBytes
        nonce.withUnsafeBytes { nonce in
            plain.withUnsafeBytes { plain in
                out.withUnsafeMutableBytes { out in
                    cipher.seal(
                        nonce: nonce, associatedData: UnsafeRawBufferPointer(rebasing: out[0..<header]),
                        plaintext: UnsafeRawBufferPointer(rebasing: plain[16..<40]),
                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[header..<tagStart]),
                        tag: UnsafeMutableRawBufferPointer(rebasing: out[tagStart...]))
                }
            }
        }
    }
}
