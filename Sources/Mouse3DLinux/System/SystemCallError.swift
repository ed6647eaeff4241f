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

    /// What to do when binding a socket to an address failed with this error.
    public var bindAdvice: String {
        switch errno {
        case .addressInUse: "another program (another mouse3d?) listens there; choose another port"
        case .addressNotAvailable: "that address is not one of this machine's; use 127.0.0.1, 0.0.0.0 or one of its own"
        case .permissionDenied: "ports below 1024 need root; choose one above 1023"
        default: "choose another address or port"
        }
    }

    /// `error`'s text, followed by ``bindAdvice`` when it is a failed system call.
    public static func describeBindFailure(_ error: any Error) -> String {
        (error as? SystemCallError).map { "\($0); \($0.bindAdvice)" } ?? "\(error)"
    }
}
