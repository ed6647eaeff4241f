import Mouse3DCore
import Mouse3DLinux

/// An error starting the phone source.
public struct PhoneSourceError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
