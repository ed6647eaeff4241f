import CLinux
import Glibc
import SystemPackage

/// A counter another thread can bump to wake a poll loop: `eventfd(2)`, non-blocking. The waiting
/// thread polls ``descriptor`` and calls ``reset()`` before looking at what changed.
public final class EventNotifier: @unchecked Sendable {
    /// The descriptor to poll; readable after ``notify()``.
    public let descriptor: FileDescriptor

    /// A new notifier.
    public init() throws(SystemCallError) {
        descriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("eventfd", "event notifier") {
                eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            })
    }

    deinit { try? descriptor.close() }

    /// Makes ``descriptor`` readable (from any thread). Cannot fail short of a closed descriptor.
    public func notify() {
        var one: UInt64 = 1
        _ = try? SystemCall.retrying("write", "event notifier", tolerating: [EAGAIN]) {
            write(descriptor.rawValue, &one, 8)
        }
    }

    /// Clears the readable state.
    public func reset() {
        var value: UInt64 = 0
        _ = try? SystemCall.retrying("read", "event notifier", tolerating: [EAGAIN]) {
            read(descriptor.rawValue, &value, 8)
        }
    }
}
