/// Where things are in a sealed datagram (kind 1 or 2). Sealing itself (ChaCha20-Poly1305) happens in the
/// network layer; this is the layout both ends agree on.
///
/// | offset | size | field | |
/// |---|---|---|---|
/// | 0 | 16 | magic, version, kind 1, stream id, sequence (as in ``AttitudeDatagram``) | clear, authenticated |
/// | 16 | 8 | sender id: the first 8 bytes of SHA-256 of the sender's public key | clear, authenticated |
/// | 24 | 4 | epoch: the sender's run counter for this receiver, never reused | clear, authenticated |
/// | 28 | 24 | send time, buttons, frame (bytes 16–39 of the plain datagram) | encrypted |
/// | 52 | 16 | Poly1305 tag | |
///
/// The sequence number is the nonce counter; the key is derived per (pairing, epoch, generation),
/// where the generation is `sequence >> generationShift`, so a key never sees a nonce twice.
public enum SealedDatagramLayout {
    /// The kind byte of a datagram sealed with ChaCha20-Poly1305 (every peer can open it).
    public static let kind: UInt8 = SealingAlgorithm.chacha20Poly1305.rawValue
    /// Bytes sent in clear (and authenticated).
    public static let headerBytes = 28
    /// Offset of the sender id.
    public static let senderIDOffset = 16
    /// Bytes of the sender id.
    public static let senderIDBytes = 8
    /// Offset of the epoch.
    public static let epochOffset = 24
    /// Bytes encrypted: send time, buttons, frame.
    public static let payloadBytes = 24
    /// Bytes of the authentication tag.
    public static let tagBytes = 16
    /// Total size.
    public static let byteCount = headerBytes + payloadBytes + tagBytes
    /// Keys change every 2^24 datagrams (4.6 hours at 1 kHz), and with every epoch.
    public static let generationShift: UInt64 = 24

    /// The key generation a sequence number belongs to.
    @inlinable
    public static func generation(of sequence: UInt64) -> UInt64 { sequence >> generationShift }
}
