import CLinux
import Glibc
import SystemPackage

/// Tells when files in one directory are created, replaced, renamed or removed (inotify), so that a
/// running receiver sees a pairing or a revocation at once. The directory itself may be moved away
/// or replaced (`mv senders senders.old; mkdir senders`): its parent is watched for its name too, and
/// the watch follows the path to whatever directory is there now.
public final class DirectoryWatcher {
    /// The descriptor to poll; readable after a change.
    public let descriptor: FileDescriptor
    /// The watched directory.
    public let path: String
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1
    private let name: String
    static let directoryMask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB
    )

    /// Watches `path` (which must exist). `inotify_init1(2)`, `inotify_add_watch(2)`.
    public init(path: String) throws(SystemCallError) {
        descriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("inotify_init1", path) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
        self.path = path
        let slash = path.lastIndex(of: "/")
        name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let parent = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        do {
            directoryWatch = try SystemCall.retrying("inotify_add_watch", path) {
                inotify_add_watch(descriptor.rawValue, path, Self.directoryMask)
            }
            let parentMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR)
            parentWatch =
                (try? SystemCall.retrying("inotify_add_watch", parent) {
                    inotify_add_watch(descriptor.rawValue, parent, parentMask)
                }) ?? -1
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    deinit { try? descriptor.close() }

    /// Watches whatever directory is at ``path`` now (after it was moved, removed or replaced);
    /// false if there is none.
    @discardableResult
    public func rewatch() -> Bool {
        let wd = try? SystemCall.retrying("inotify_add_watch", path) {
            inotify_add_watch(descriptor.rawValue, path, Self.directoryMask)
        }
        if directoryWatch >= 0 && wd != directoryWatch {
            _ = try? SystemCall.retrying("inotify_rm_watch", path) {
                inotify_rm_watch(descriptor.rawValue, directoryWatch)
            }  // the moved-away one
        }
        directoryWatch = wd ?? -1
        return wd != nil
    }

    /// Reads every pending notification; true if any was about a file whose name `relevant`
    /// accepts, or about the directory itself (moved, removed, replaced: then the watch follows
    /// the path). A receiver's own state writes (`.state` files and their temporaries) land in the
    /// folder it watches for pairings: without the filter each one made it reread every pairing, on
    /// the loop (64 senders: a 60 ms stall every 2 s).
    public func drain(relevant: (String) -> Bool = { _ in true }) throws(SystemCallError) -> Bool {
        var changed = false
        var moved = false
        while true {
            let n = try SystemCall.retrying(
                "read", path, tolerating: [EAGAIN], { read(descriptor.rawValue, &buffer, buffer.count) })
            guard let n, n > 0 else { break }
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name
            // (NUL-padded); a read returns whole events.
            var offset = 0
            while offset + 16 <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes {
                    (
                        $0.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let entry = String(
                    decoding: buffer[(offset + 16)..<min(n, offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
                if wd == parentWatch && parentWatch >= 0 {
                    if entry == name { moved = true }
                } else if wd == directoryWatch && mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                    moved = true
                } else if wd == directoryWatch && (length == 0 || relevant(entry)) {
                    changed = true
                }
                offset += 16 + length
            }
        }
        if moved {
            rewatch()
            changed = true
        }
        return changed
    }
}
