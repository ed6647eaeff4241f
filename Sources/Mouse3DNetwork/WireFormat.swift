/// What goes on the wire.
public enum WireFormat: String, Sendable, CaseIterable {
    /// The 68-byte sealed datagram: header in clear, the rest encrypted and authenticated with the
    /// key of a pairing (see ``SealedDatagramLayout``). The default.
    case sealed
    /// The 40-byte ``AttitudeDatagram`` with stream id, sequence number, send time and buttons.
    case datagram
    /// The bare 12-byte ``AttitudeFrame``, for simple peers that speak only the frame.
    case raw
}
