/// A failure the user can act on: one sentence that says what went wrong and what to do. The
/// command line prints it as `Error: MESSAGE` and exits with status 1, without a stack trace.
public struct ActionableError: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String

    /// A failure with `message`.
    public init(_ message: String) { description = message }
}
