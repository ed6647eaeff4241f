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

    /// Reads every pending notification; true if any was about a file whose name `relevant`
    /// accepts (or about the directory itself). A receiver's own state writes (`.state` files and
    /// their temporaries) land in the folder it watches for pairings: without the filter each one
    /// made it reread every pairing, on the loop (64 senders: a 60 ms stall every 2 s).
    public func drain(relevant: (String) -> Bool = { _ in true }) throws(SystemCallError) -> Bool {
        var changed = false
        while true {
            let n = try SystemCall.retrying("read", path, tolerating: [EAGAIN], { read(descriptor.rawValue, &buffer, buffer.count) })
            guard let n, n > 0 else { break }
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name
            // (NUL-padded); a read returns whole events.
            var offset = 0
            while offset + 16 <= n {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + length)].prefix { $0 != 0 }
                if length == 0 || relevant(String(decoding: nameBytes, as: UTF8.self)) { changed = true }
                offset += 16 + length
            }
        }
        return changed
    }
}
