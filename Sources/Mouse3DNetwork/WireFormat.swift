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

/// Facts every mouse3d peer shares.
public enum StreamDefaults {
    /// The UDP port a receiver listens on unless told otherwise.
    public static let port: UInt16 = 24_930
    /// Most peers one sender streams to at once.
    public static let maximumPeers = 8
    /// The UDP port `mouse3d pair` listens on while it shows a code.
    public static let pairingPort: UInt16 = 24_931
}
