import Mouse3DCore

/// A datagram that passed every check, as sent, and for a sealed one who sent it. The one shape
/// between the wire and the outputs: the receiver turns it into an `AttitudeUpdate` once.
public struct VerifiedDatagram: Sendable {
    /// Its fields (for a bare 12-byte frame: stream 0, sequence 0, no send time, the clutch held).
    public var datagram: AttitudeDatagram
    /// The paired sender's name (sealed datagrams only).
    public var peerName: String?
    /// The paired sender's id (the first 8 bytes of its identity's id, as in the header); 0 unless sealed.
    public var senderKey: UInt64
    /// The paired sender, when this datagram started a new epoch (the sender restarted): worth
    /// storing. Nil otherwise (the common case costs no copy of the record).
    public var startedEpoch: PairedPeer?

    /// Creates a verified datagram.
    public init(
        datagram: AttitudeDatagram, peerName: String? = nil, senderKey: UInt64 = 0, startedEpoch: PairedPeer? = nil
    ) {
        self.datagram = datagram
        self.peerName = peerName
        self.senderKey = senderKey
        self.startedEpoch = startedEpoch
    }
}
