/// Facts every mouse3d peer shares.
public enum StreamDefaults {
    /// The UDP port a receiver listens on unless told otherwise.
    public static let port: UInt16 = 24_930
    /// Most peers one sender streams to at once.
    public static let maximumPeers = 8
    /// The UDP port `mouse3d pair` listens on while it shows a code.
    public static let pairingPort: UInt16 = 24_931
}
