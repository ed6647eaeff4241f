import CLinux
import Mouse3DCore
import SystemPackage

/// A motion source could not be used; the message says why and what to do.
public struct MotionSourceError: Error, CustomStringConvertible {
    /// The sentence for the user.
    public var message: String
    /// Creates an error.
    public init(message: String) { self.message = message }
    public var description: String { message }
}
