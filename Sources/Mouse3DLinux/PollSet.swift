import CLinux
import Glibc

/// A fixed set of descriptors to wait on until one is readable, with a timeout in nanoseconds.
/// The corresponding C call is `ppoll(2)`. Reused across waits without allocating. Owned by one thread.
public final class PollSet {
    private var fds: [pollfd]

    /// A set over `descriptors`; ``isReadable(_:)`` takes positions in this list.
    public init(_ descriptors: [Int32]) {
        fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    }

    /// Waits until a descriptor is readable or `timeoutNanoseconds` pass (`nil`: forever).
    /// Returns whether any is readable.
    @discardableResult
    public func wait(timeoutNanoseconds: UInt64?) throws(SystemCallError) -> Bool {
        let count = fds.count
        let ready = try fds.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) -> Int32 in
            for i in 0..<count { buffer[i].revents = 0 }
            if let timeout = timeoutNanoseconds {
                var ts = timespec(tv_sec: Int(timeout / 1_000_000_000), tv_nsec: Int(timeout % 1_000_000_000))
                return try SystemCall.retrying("ppoll", "poll set") { ppoll(buffer.baseAddress, nfds_t(count), &ts, nil) }
            }
            return try SystemCall.retrying("ppoll", "poll set") { ppoll(buffer.baseAddress, nfds_t(count), nil, nil) }
        }
        return ready > 0
    }

    /// Whether the descriptor at `position` was readable (or hung up) after the last wait.
    public func isReadable(_ position: Int) -> Bool { fds[position].revents != 0 }
}
