/// Facts about the mouse3d wire protocol that every peer shares.
public enum NetworkDefaults {
    /// The UDP port a receiver listens on unless told otherwise.
    public static let port: UInt16 = 24_930
}
