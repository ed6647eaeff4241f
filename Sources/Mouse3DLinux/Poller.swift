import CLinux
import Glibc

/// Waits for descriptors to become readable, with a timeout in nanoseconds. `ppoll(2)`.
public enum Poller {
    /// Waits until one of `descriptors` is readable or `timeoutNanoseconds` pass (`nil`: forever).
    /// Returns the descriptors that are readable (empty on timeout).
    public static func waitReadable(_ descriptors: [Int32], timeoutNanoseconds: UInt64?) throws(SystemCallError) -> [Int32] {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let count = try fds.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) -> Int32 in
            if let timeout = timeoutNanoseconds {
                var ts = timespec(tv_sec: Int(timeout / 1_000_000_000), tv_nsec: Int(timeout % 1_000_000_000))
                return try SystemCall.retrying("ppoll", "descriptors \(descriptors)") {
                    ppoll(buffer.baseAddress, nfds_t(buffer.count), &ts, nil)
                }
            }
            return try SystemCall.retrying("ppoll", "descriptors \(descriptors)") {
                ppoll(buffer.baseAddress, nfds_t(buffer.count), nil, nil)
            }
        }
        guard count > 0 else { return [] }
        return fds.filter { $0.revents != 0 }.map(\.fd)
    }
}
