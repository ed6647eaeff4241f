import Glibc
import SystemPackage

/// The one place system calls are made from: retries on `EINTR`, turns `-1`/errno into a thrown
/// ``SystemCallError`` naming the call and its subject.
@usableFromInline
enum SystemCall {
    /// Runs `body` until it does not fail with `EINTR`; throws on `-1`.
    @inlinable
    static func retrying<T: FixedWidthInteger>(
        _ call: StaticString, _ subject: @autoclosure () -> String, _ body: () -> T
    ) throws(SystemCallError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            throw SystemCallError(call: "\(call)", subject: subject(), errno: Errno(rawValue: error))
        }
    }

    /// Like ``retrying(_:_:_:)`` but returns `nil` instead of throwing for the errors in `tolerated`.
    @inlinable
    static func retrying<T: FixedWidthInteger>(
        _ call: StaticString, _ subject: @autoclosure () -> String, tolerating tolerated: [Int32], _ body: () -> T
    ) throws(SystemCallError) -> T? {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            if tolerated.contains(error) { return nil }
            throw SystemCallError(call: "\(call)", subject: subject(), errno: Errno(rawValue: error))
        }
    }
}
