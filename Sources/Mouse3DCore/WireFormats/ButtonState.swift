/// Buttons a sender reports with every frame (a bitmask), so the receiving side can click as well as
/// point.
public struct ButtonState: OptionSet, Sendable, Hashable {
    public var rawValue: UInt32

    /// Creates a state from its bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Motion is enabled while this is set (hold-to-move, or a toggle kept by the sender).
    public static let clutch = ButtonState(rawValue: 1 << 0)
    /// The sender asks for the current attitude to become zero.
    public static let recenter = ButtonState(rawValue: 1 << 1)
    /// Primary click.
    public static let primary = ButtonState(rawValue: 1 << 2)
    /// Secondary click.
    public static let secondary = ButtonState(rawValue: 1 << 3)
    /// Middle click.
    public static let middle = ButtonState(rawValue: 1 << 4)
}
