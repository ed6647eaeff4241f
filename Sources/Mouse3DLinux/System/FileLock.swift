import Glibc
import SystemPackage

/// An exclusive advisory lock on a file, held for the life of this object (or of the process: the
/// kernel drops it when the descriptor closes, also on SIGKILL). The file is created, mode 0600,
/// if missing, and never replaced, so every process locks the same inode.
/// The corresponding C calls are `open(O_CREAT | O_CLOEXEC | O_NOFOLLOW)` and `flock(LOCK_EX | LOCK_NB)`.
public final class FileLock {
    /// The lock file.
    public let path: String
    private let descriptor: FileDescriptor

    /// Why the lock was not taken.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// Another process holds it.
        case held(path: String)
        /// A system call failed.
        case system(SystemCallError)

        public var description: String {
            switch self {
            case .held(let path): "\(path) is locked by another process"
            case .system(let error): error.description
            }
        }
    }

    /// Takes the lock on `path` without waiting.
    public init(path: String) throws(Problem) {
        self.path = path
        let fd: FileDescriptor
        do {
            fd = FileDescriptor(
                rawValue: try SystemCall.retrying("open", path) {
                    open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
                })
        } catch { throw .system(error) }
        let outcome: SystemCall.Outcome<Int32>
        do {
            outcome = try SystemCall.attempt("flock", path, tolerating: [EWOULDBLOCK]) {
                flock(fd.rawValue, LOCK_EX | LOCK_NB)
            }
        } catch {
            try? fd.close()
            throw .system(error)
        }
        guard case .completed = outcome else {
            try? fd.close()
            throw .held(path: path)
        }
        descriptor = fd
    }

    deinit { try? descriptor.close() }
}
