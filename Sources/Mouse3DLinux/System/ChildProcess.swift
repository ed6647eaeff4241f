import CLinux
import Glibc
import SystemPackage

/// A child process started with `posix_spawn(3)`, its standard output sent to a file (or inherited)
/// and its standard error readable through a pipe. Owned by one thread.
public final class ChildProcess {
    /// The child's process id.
    public let pid: Int32
    private let errorPipe: FileDescriptor
    private var pendingErrors: [UInt8] = []
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments` (not including argv[0]); standard output goes to
    /// `standardOutputPath` if given.
    public init(executable: String, arguments: [String], standardOutputPath: String? = nil) throws(SystemCallError) {
        var fds: [Int32] = [0, 0]
        _ = try SystemCall.retrying("pipe2", "child's standard error") { pipe2(&fds, O_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let path = standardOutputPath {
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        // The child starts with no blocked signals and default handlers, whatever the calling thread
        // had (worker threads block signals; a child inheriting that would ignore SIGTERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, Glibc.environ)
        try? FileDescriptor(rawValue: fds[1]).close()
        guard status == 0 else {
            try? FileDescriptor(rawValue: fds[0]).close()
            throw SystemCallError(call: "posix_spawn", subject: executable, errno: .init(rawValue: status))
        }
        pid = child
        errorPipe = FileDescriptor(rawValue: fds[0])
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = try? wait()
        }
        try? errorPipe.close()
    }

    /// Reads the child's standard error until a full line is there and returns it (nil at end of file).
    public func readErrorLine() throws(SystemCallError) -> String? {
        while true {
            if let newline = pendingErrors.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pendingErrors[..<newline], as: UTF8.self)
                pendingErrors.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = try SystemCall.retrying("read", "child \(pid) standard error") {
                read(errorPipe.rawValue, &chunk, chunk.count)
            }
            if n == 0 { return pendingErrors.isEmpty ? nil : String(decoding: pendingErrors, as: UTF8.self) }
            pendingErrors.append(contentsOf: chunk[0..<n])
        }
    }

    /// Everything the child writes to standard error until it closes it.
    public func readAllErrors() throws(SystemCallError) -> String {
        var lines: [String] = []
        while let line = try readErrorLine() { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// Asks the child to end (SIGTERM), as a service manager would.
    public func terminate() throws(SystemCallError) { try send(signal: SIGTERM) }

    /// Interrupts the child (SIGINT), as Ctrl-C would.
    public func interrupt() throws(SystemCallError) { try send(signal: SIGINT) }

    /// Sends `signal` to the child. `kill(2)`.
    public func send(signal: Int32) throws(SystemCallError) {
        _ = try SystemCall.retrying("kill", "child \(pid)") { kill(pid, signal) }
    }

    /// Waits for the child to end; its exit status (128 + signal number if killed). `waitpid(2)`.
    @discardableResult
    public func wait() throws(SystemCallError) -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        _ = try SystemCall.retrying("waitpid", "child \(pid)") { waitpid(pid, &status, 0) }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }
}
