import SystemPackage

/// A failed system call: which call, on what, and the errno text.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The call, for example `open`.
    public var call: String
    /// The path or object it was made on.
    public var subject: String
    /// The error number.
    public var errno: Errno

    /// Creates an error.
    public init(call: String, subject: String, errno: Errno) {
        self.call = call
        self.subject = subject
        self.errno = errno
    }

    public var description: String {
        "\(subject): \(call) failed: \(errno.description) (errno \(errno.rawValue))"
    }
}
