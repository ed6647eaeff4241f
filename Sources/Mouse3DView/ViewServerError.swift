import Mouse3DCore
import Mouse3DLinux

/// An error starting the view.
public struct ViewServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
