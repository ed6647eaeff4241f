import CLinux
import Glibc
import SystemPackage

/// Tells when files in one directory are created, replaced, renamed or removed (inotify), so that a
/// running receiver sees a pairing or a revocation at once.
public final class DirectoryWatcher {
    /// The descriptor to poll; readable after a change.
    public let descriptor: FileDescriptor
    /// The watched directory.
    public let path: String
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// Watches `path` (which must exist). `inotify_init1(2)`, `inotify_add_watch(2)`.
    public init(path: String) throws(SystemCallError) {
        descriptor = FileDescriptor(rawValue: try SystemCall.retrying("inotify_init1", path) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
        self.path = path
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_ATTRIB)
        do {
            _ = try SystemCall.retrying("inotify_add_watch", path) { inotify_add_watch(descriptor.rawValue, path, mask) }
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    deinit { try? descriptor.close() }

    /// Reads every pending notification; true if there was any.
    public func drain() throws(SystemCallError) -> Bool {
        var changed = false
        while true {
            let n = try SystemCall.retrying("read", path, tolerating: [EAGAIN], { read(descriptor.rawValue, &buffer, buffer.count) })
            guard let n, n > 0 else { break }
            changed = true
        }
        return changed
    }
}
