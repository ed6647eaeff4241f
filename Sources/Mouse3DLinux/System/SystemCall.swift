import CLinux
import Glibc
import SystemPackage

/// The one place system calls are made from: retries on `EINTR`, turns `-1`/errno into a thrown
/// ``SystemCallError`` naming the call and its subject.
@_spi(DeviceEmulators) public enum SystemCall {
    /// How a call that may fail in expected ways ended.
    @_spi(DeviceEmulators) public enum Outcome<T> {
        /// It succeeded with this result.
        case completed(T)
        /// It failed with one of the tolerated errors.
        case tolerated(Errno)
    }

    /// Runs `body` until it does not fail with `EINTR`; returns its result, the tolerated error it
    /// failed with, or throws any other.
    @inlinable
    @_spi(DeviceEmulators) public static func attempt<T: FixedWidthInteger>(
        _ call: StaticString, _ subject: @autoclosure () -> String, tolerating tolerated: [Int32], _ body: () -> T
    ) throws(SystemCallError) -> Outcome<T> {
        while true {
            let result = body()
            if result != -1 { return .completed(result) }
            let error = Glibc.errno
            if error == EINTR { continue }
            if tolerated.contains(error) { return .tolerated(Errno(rawValue: error)) }
            throw SystemCallError(call: "\(call)", subject: subject(), errno: Errno(rawValue: error))
        }
    }

    /// Runs `body` until it does not fail with `EINTR`; throws on `-1`.
    @inlinable
    @_spi(DeviceEmulators) public static func retrying<T: FixedWidthInteger>(
        _ call: StaticString, _ subject: @autoclosure () -> String, _ body: () -> T
    ) throws(SystemCallError) -> T {
        switch try attempt(call, subject(), tolerating: [], body) {
        case .completed(let result): return result
        case .tolerated(let errno): throw SystemCallError(call: "\(call)", subject: subject(), errno: errno)
        }
    }

    /// Like ``retrying(_:_:_:)`` but returns `nil` instead of throwing for the errors in `tolerated`.
    @inlinable
    @_spi(DeviceEmulators) public static func retrying<T: FixedWidthInteger>(
        _ call: StaticString, _ subject: @autoclosure () -> String, tolerating tolerated: [Int32], _ body: () -> T
    ) throws(SystemCallError) -> T? {
        switch try attempt(call, subject(), tolerating: tolerated, body) {
        case .completed(let result): return result
        case .tolerated: return nil
        }
    }

    /// For calls that return 0 or an error number instead of setting errno (`pthread_*`,
    /// `posix_spawn`): throws on a non-zero result.
    @inlinable
    @_spi(DeviceEmulators) public static func checking(
        _ call: StaticString, _ subject: @autoclosure () -> String, _ body: () -> Int32
    ) throws(SystemCallError) {
        let status = body()
        guard status == 0 else {
            throw SystemCallError(call: "\(call)", subject: subject(), errno: Errno(rawValue: status))
        }
    }

    /// Writes all of `bytes` to `fd` with `write(2)`: retried on EINTR and carried on after a
    /// partial write. A write of nothing where bytes remain (which write(2) does only when asked
    /// for nothing) is an error, not a silent loss.
    static func writeAll(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ subject: @autoclosure () -> String
    ) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let written = try retrying("write", subject()) {
                mouse3d_write_direct(fd, bytes.baseAddress! + offset, UInt(bytes.count - offset))
            }
            guard written > 0 else { throw SystemCallError(call: "write", subject: subject(), errno: .ioError) }
            offset += written
        }
    }
}
