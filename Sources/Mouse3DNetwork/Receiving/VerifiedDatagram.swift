import Mouse3DCore

/// A datagram that passed every check, as sent, and for a sealed one who sent it. The one shape
/// between the wire and the outputs: the receiver turns it into an `AttitudeUpdate` once.
public struct VerifiedDatagram: Sendable {
    /// Its fields (for a bare 12-byte frame: stream 0, sequence 0, no send time, the clutch held).
    public var datagram: AttitudeDatagram
    /// The paired sender's id (the first 8 bytes of its identity's id, as in the header); 0 unless
    /// sealed. Its name: ``SealedStreamOpener/name(ofSender:)``.
    public var senderKey: UInt64

    /// Creates a verified datagram.
    public init(datagram: AttitudeDatagram, senderKey: UInt64 = 0) {
        self.datagram = datagram
        self.senderKey = senderKey
    }
}
