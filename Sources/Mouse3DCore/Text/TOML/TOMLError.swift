/// Text that is not TOML 1.0, with the line (1-based) where reading stopped.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line, 1-based.
    public var line: Int
    /// What is wrong, and where it can, what was expected.
    public var message: String

    /// Creates an error.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
