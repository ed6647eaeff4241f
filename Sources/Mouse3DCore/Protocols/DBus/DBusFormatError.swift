/// Why bytes are not a D-Bus message (or value).
public enum DBusFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the lengths say.
    case truncated
    /// Something the specification does not allow, in words.
    case invalid(String)

    public var description: String {
        switch self {
        case .truncated: "a D-Bus message cut short"
        case .invalid(let what): "a D-Bus message with \(what)"
        }
    }
}
