import CLinux
import Mouse3DCore
import SystemPackage

/// A motion source could not be used; the message says why and what to do.
public struct MotionSourceError: Error, CustomStringConvertible {
    /// The sentence for the user.
    public var message: String
    /// Whether the device looked for is simply not there (a reopen by identity that finds nothing),
    /// rather than there and not usable.
    public var isAbsence = false
    /// Creates an error.
    public init(message: String, isAbsence: Bool = false) {
        self.message = message
        self.isAbsence = isAbsence
    }
    public var description: String { message }
}
