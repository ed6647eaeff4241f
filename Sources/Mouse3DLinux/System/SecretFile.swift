import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// Files that hold keys: written atomically with mode 0600, refused when others could read them.
public enum SecretFile {
    /// Why a key file was not used.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// Group or others may read or write it.
        case readableByOthers(path: String, mode: UInt32)
        /// Another user owns it.
        case wrongOwner(path: String, owner: UInt32)
        /// Not a regular file.
        case notRegularFile(path: String)
        /// A folder of key files that group or others may change (they could replace a key).
        case writableFolder(path: String, mode: UInt32)
        /// A folder of key files that another user owns.
        case foreignFolder(path: String, owner: UInt32)
        /// A folder above the keys' that others may change (they could move the keys' folder away and
        /// put their own in its place): neither the caller's nor root's, or writable by others
        /// without the sticky bit.
        case unsafeParent(path: String, owner: UInt32, mode: UInt32)
        /// A system call failed.
        case system(SystemCallError)

        public var description: String {
            switch self {
            case .readableByOthers(let path, let mode):
                "\(path): permissions \(String(mode & 0o777, radix: 8)) let other users read or change this key; "
                    + "run `chmod 600 \(path)` (and pair again if someone else may have copied it)"
            case .wrongOwner(let path, let owner):
                "\(path): owned by uid \(owner), not by you (uid \(geteuid())); a key must belong to the user who runs mouse3d"
            case .notRegularFile(let path):
                "\(path): not a regular file; a key file must be a plain file"
            case .writableFolder(let path, let mode):
                "\(path): permissions \(String(mode & 0o777, radix: 8)) let other users replace the keys in it; run `chmod 700 \(path)`"
            case .foreignFolder(let path, let owner):
                "\(path): owned by uid \(owner), not by you (uid \(geteuid())); keys must be in a folder of the user who runs mouse3d"
            case .unsafeParent(let path, let owner, let mode):
                "\(path): a folder above mouse3d's keys that other users can change (owner uid \(owner), permissions "
                    + "\(String(mode & 0o7777, radix: 8))), so they could put their own keys in place of yours; "
                    + "keep mouse3d's folder under folders only you or root can change (e.g. `chmod go-w \(path)`)"
            case .system(let error): error.description
            }
        }
    }

    /// Reads the key file at `path`, after checking that it is a regular file owned by the caller and
    /// closed to group and others. `nil` when it does not exist. Opened without blocking: a FIFO
    /// someone put there would otherwise hold `open` until a writer came (and the process with it,
    /// deaf to SIGTERM, whose handling waits for the event loop); it is refused by `fstat` instead.
    public static func read(path: String) throws(Problem) -> [UInt8]? {
        let fd: FileDescriptor
        var status = stat()
        do {
            guard
                let opened = try SystemCall.retrying(
                    "open", path, tolerating: [ENOENT], { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) })
            else { return nil }
            fd = FileDescriptor(rawValue: opened)
        } catch { throw .system(error) }
        defer { try? fd.close() }
        do {
            _ = try SystemCall.retrying("fstat", path) { fstat(fd.rawValue, &status) }
        } catch { throw .system(error) }
        if let problem = problem(with: status, path: path) { throw problem }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n: Int
            do {
                n = try SystemCall.retrying("read", path) { Glibc.read(fd.rawValue, &chunk, chunk.count) }
            } catch { throw .system(error) }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }

    /// Why a file with `status` is not a key file's: not a regular file, another user's, or open to
    /// group or others (nil: it is fit).
    static func problem(with status: stat, path: String) -> Problem? {
        guard status.st_mode & S_IFMT == S_IFREG else { return .notRegularFile(path: path) }
        guard status.st_uid == geteuid() else { return .wrongOwner(path: path, owner: status.st_uid) }
        guard status.st_mode & 0o077 == 0 else { return .readableByOthers(path: path, mode: status.st_mode) }
        return nil
    }

    /// Replaces the file at `path` with `bytes`, atomically and durably (a temporary file in the same
    /// directory, written, synced and renamed over it, then the directory synced so that the rename
    /// survives a power loss), mode 0600.
    public static func write(path: String, bytes: [UInt8]) throws(SystemCallError) {
        if let error = write([(path, bytes)])[0] { throw error }
    }

    /// ``write(path:bytes:)`` for several files at once, with the same guarantee for each, in a
    /// group commit: every temporary file is written, then each synced (the first sync commits the
    /// file system's journal for all of them, the others find little left to do), renamed, and
    /// each folder synced once. Returns each file's error, or nil where it was stored. The paths
    /// must differ (each has one temporary file); a file that fails does not stop the others.
    /// Why: 64 senders starting together made a receiver store 64 session states one after the
    /// other, two fsyncs each (94 ms on a VM's disk) while their first datagrams were held.
    ///
    /// `keepingTemporaries`: each temporary (``temporaryPath(for:)``) is swapped with its file
    /// (`renameat2` with `RENAME_EXCHANGE`, atomic as a rename is) instead of renamed over it, so it
    /// stays, holding the previous contents, and the next write of the same path rewrites it in
    /// place: no inode is made or freed. Where the file does not exist yet, or the file system cannot
    /// swap, it is renamed as without. The caller removes the temporaries when it is done
    /// (``removeTemporary(for:)``; a crash leaves them to ``removeStaleTemporaries(in:)``). Why: a
    /// receiver with 64 senders renews their reservations every 2 s, and making and freeing 64 inodes
    /// each time kept its store thread on the CPU for 20-80 ms a group (perf: ext4's inode allocator
    /// stepping over the recently freed inodes, `recently_deleted`), in slices of 0.2-0.5 ms that
    /// the event loop, woken by datagrams, waited behind (the kernel does not preempt in-kernel
    /// work).
    public static func write(
        _ files: [(path: String, bytes: [UInt8])], keepingTemporaries: Bool = false
    ) -> [SystemCallError?] {
        precondition(Set(files.map(\.path)).count == files.count, "one write per path in a group")
        var errors = [SystemCallError?](repeating: nil, count: files.count)
        var opened: [(index: Int, fd: FileDescriptor, temporary: String)] = []
        var renamed = Set<Int>()
        defer {
            for file in opened {
                try? file.fd.close()
                if !renamed.contains(file.index) { try? FileSystem.remove(file.temporary) }
            }
        }
        for (index, file) in files.enumerated() {
            let temporary = temporaryPath(for: file.path)
            do throws(SystemCallError) {
                let kept = keepingTemporaries ? try reopen(temporary) : nil
                let fd: FileDescriptor
                if let kept { fd = kept } else { fd = try create(temporary) }
                opened.append((index, fd, temporary))
                let failure: SystemCallError? = file.bytes.withUnsafeBytes { raw in
                    do throws(SystemCallError) {
                        try SystemCall.writeAll(fd.rawValue, raw, temporary)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { throw failure }
                if kept != nil {
                    try SystemCall.checking("ftruncate", temporary) { ftruncate(fd.rawValue, off_t(file.bytes.count)) }
                }
            } catch {
                errors[index] = error
            }
        }
        var folders: [String: [Int]] = [:]
        for file in opened where errors[file.index] == nil {
            let path = files[file.index].path
            do throws(SystemCallError) {
                _ = try SystemCall.retrying("fsync", file.temporary) { fsync(file.fd.rawValue) }
                // Swapped only with a plain file: a rename over anything else does what it did
                // before (over a folder it fails), where a swap would move the folder aside.
                let swapped =
                    keepingTemporaries && isPlainFile(path)
                    ? try SystemCall.retrying("renameat2", path, tolerating: [ENOENT, EINVAL, ENOSYS, EOPNOTSUPP]) {
                        mouse3d_exchange_paths(file.temporary, path)
                    } != nil : false
                if !swapped { _ = try SystemCall.retrying("rename", path) { rename(file.temporary, path) } }
                renamed.insert(file.index)
                folders[folder(of: path), default: []].append(file.index)
            } catch {
                errors[file.index] = error
            }
        }
        for (folder, indices) in folders {
            do throws(SystemCallError) { try syncFolder(folder) } catch { for i in indices { errors[i] = error } }
        }
        return errors
    }

    /// The temporary file a write of `path` by this process uses: `PATH.tmp-PID`.
    public static func temporaryPath(for path: String) -> String { path + temporaryMark + String(getpid()) }

    /// Removes the temporary a write of `path` with `keepingTemporaries` kept, if any.
    public static func removeTemporary(for path: String) {
        _ = try? FileSystem.remove(temporaryPath(for: path))
    }

    /// Whether `path` is a regular file (not followed if a symbolic link).
    private static func isPlainFile(_ path: String) -> Bool {
        var status = stat()
        return (try? SystemCall.retrying("stat", path) { lstat(path, &status) }) != nil
            && status.st_mode & S_IFMT == S_IFREG
    }

    /// A new temporary file at `temporary` (one left there by a process of the same id is removed).
    private static func create(_ temporary: String) throws(SystemCallError) -> FileDescriptor {
        try FileSystem.remove(temporary)
        return FileDescriptor(
            rawValue: try SystemCall.retrying("open", temporary) {
                open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            })
    }

    /// The kept temporary at `temporary`, opened for rewriting from its start, if it is there and is
    /// a regular file of the caller's closed to others (else nil: it is made anew). Without blocking,
    /// so a FIFO put in its place is refused rather than waited on.
    private static func reopen(_ temporary: String) throws(SystemCallError) -> FileDescriptor? {
        guard
            let raw = try SystemCall.retrying(
                "open", temporary, tolerating: [ENOENT, ENXIO, ELOOP],
                { open(temporary, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) })
        else { return nil }
        let fd = FileDescriptor(rawValue: raw)
        var status = stat()
        let usable =
            (try? SystemCall.retrying("fstat", temporary) { fstat(raw, &status) }) != nil
            && problem(with: status, path: temporary) == nil
        guard usable else {
            try? fd.close()
            return nil
        }
        return fd
    }

    /// Removes the temporary files that writes of processes no longer running left in `folder`
    /// (`NAME.tmp-PID`: a crash or power loss between a temporary's creation and its rename; a group
    /// write can leave 64). A running process's are left alone. Returns how many were removed.
    @discardableResult
    public static func removeStaleTemporaries(in folder: String) -> Int {
        guard let names = try? DirectoryListing.names(in: folder) else { return 0 }
        var removed = 0
        for name in names {
            guard let mark = name.ranges(of: temporaryMark).last,
                let pid = Int32(name[mark.upperBound...]), pid > 0, pid != getpid(),
                case .tolerated(let error)? = try? SystemCall.attempt(
                    "kill", "process \(pid)", tolerating: [ESRCH, EPERM], { kill(pid, 0) }),
                error.rawValue == ESRCH
            else { continue }
            if (try? FileSystem.remove(folder + "/" + name)) != nil { removed += 1 }
        }
        return removed
    }

    /// What names a temporary file: `NAME.tmp-PID`, PID its writer's.
    static let temporaryMark = ".tmp-"

    /// The folder holding `path`.
    static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
    }

    /// `fsync(2)` on a directory.
    static func syncFolder(_ directory: String) throws(SystemCallError) {
        let fd = FileDescriptor(
            rawValue: try SystemCall.retrying("open", directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        )
        defer { try? fd.close() }
        _ = try SystemCall.retrying("fsync", directory) { fsync(fd.rawValue) }
    }

    /// Checks that the folder at `path`, if it exists, is owned by the caller and that group and
    /// others cannot change it (as key files are checked; reading is left to the files' own modes).
    public static func checkFolder(_ path: String) throws(Problem) {
        var status = stat()
        let outcome: SystemCall.Outcome<Int32>
        do {
            outcome = try SystemCall.attempt("stat", path, tolerating: [ENOENT]) { lstat(path, &status) }
        } catch { throw .system(error) }
        guard case .completed = outcome else { return try checkParents(of: path) }
        guard status.st_uid == geteuid() else { throw .foreignFolder(path: path, owner: status.st_uid) }
        guard status.st_mode & 0o022 == 0 else { throw .writableFolder(path: path, mode: status.st_mode) }
        try checkParents(of: path)
    }

    /// Checks every folder above `path` (that exists), following symbolic links first (a linked
    /// `~/.config` is checked where it really is): the caller's or root's, and not writable by
    /// others, nor by a group other than the caller's own private group (a home folder of 0775 under
    /// user private groups, where the group is named as the user), unless sticky (as /tmp is: there
    /// others cannot rename what is not theirs).
    static func checkParents(of path: String) throws(Problem) {
        var parent = path
        if let real = realpath(path, nil) {
            parent = String(cString: real)
            free(real)
        }
        let ownGroup = Self.privateGroup()
        let rootSeenAs = Self.unmappedRootOwner()
        // Only above the user's home (from the password database, resolved): from there down
        // every folder must still be the user's or root's, seen as they are.
        let home = getpwuid(geteuid()).flatMap { $0.pointee.pw_dir }.map { String(cString: $0) }.map { path in
            guard let real = realpath(path, nil) else { return path }
            defer { free(real) }
            return String(cString: real)
        }
        func aboveHome(_ folder: String) -> Bool {
            guard let home, home != "/" else { return false }
            return folder == "/" || home.hasPrefix(folder + "/")
        }
        while let slash = parent.lastIndex(of: "/") {
            parent = slash == parent.startIndex ? "/" : String(parent[..<slash])
            var status = stat()
            let outcome: SystemCall.Outcome<Int32>
            do {
                outcome = try SystemCall.attempt("stat", parent, tolerating: [ENOENT]) { stat(parent, &status) }
            } catch { throw .system(error) }
            if case .completed = outcome {
                let owned =
                    status.st_uid == geteuid() || status.st_uid == 0
                    || (status.st_uid == rootSeenAs && aboveHome(parent))
                let groupOnly = status.st_gid == ownGroup ? UInt32(0o002) : 0o022
                let shared = status.st_mode & groupOnly != 0 && status.st_mode & UInt32(Glibc.S_ISVTX) == 0
                if !owned || shared { throw .unsafeParent(path: parent, owner: status.st_uid, mode: status.st_mode) }
            }
            if parent == "/" { break }
        }
    }

    /// The caller's private group (its primary group when that is named as the user), if any.
    /// The uid root's files show inside a user namespace that does not map root, as systemd's
    /// `PrivateUsers=yes` makes for a user unit (only the user's own uid is mapped): the kernel's
    /// overflow uid (65534, "nobody"). Inside such a namespace /, /home and the rest of the system
    /// show as owned by it; outside one (uid 0 mapped) nil, and a folder of the real nobody is
    /// foreign as any other. Inside the namespace another user's folder shows as the same uid, so
    /// `checkParents` takes it only for folders above the user's home (/, /home), never for the
    /// home and what is below it, where a folder of someone else's could hold the keys' folder.
    static func unmappedRootOwner(
        uidMap: String = "/proc/self/uid_map", overflowUID: String = "/proc/sys/kernel/overflowuid"
    ) -> uid_t? {
        guard let map = try? FileContents.read(path: uidMap) else { return nil }
        let rootMapped = String(decoding: map, as: UTF8.self).split(separator: "\n").contains { line in
            let fields = line.split(separator: " ").compactMap { UInt64($0) }
            return fields.count == 3 && fields[0] == 0 && fields[2] > 0
        }
        if rootMapped { return nil }
        let text = (try? FileContents.read(path: overflowUID)).map { String(decoding: $0, as: UTF8.self) }
        return uid_t(text?.filter { $0.isNumber } ?? "") ?? 65534
    }

    static func privateGroup() -> gid_t? {
        guard let user = getpwuid(geteuid()), let group = getgrgid(user.pointee.pw_gid),
            strcmp(user.pointee.pw_name, group.pointee.gr_name) == 0
        else { return nil }
        return user.pointee.pw_gid
    }

    /// Creates `path` and any missing parents; the last one with mode 0700.
    public static func makeDirectory(_ path: String) throws(SystemCallError) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        for (i, part) in parts.enumerated() {
            prefix += "/" + part
            if path.first != "/" && i == 0 { prefix = String(part) }
            let mode: mode_t = i == parts.count - 1 ? 0o700 : 0o755
            _ = try SystemCall.retrying("mkdir", prefix, tolerating: [EEXIST]) { mkdir(prefix, mode) }
        }
    }
}

extension SecretFile {
    /// The secret token kept in the file at `path` (in the folder `directory`, checked as key
    /// folders are), or a new one written there (0600) when the file is missing or holds no token
    /// (32 lower-case hex digits, as ``WebAccessPolicy/makeToken()`` makes them).
    public static func loadOrCreateToken(path: String, in directory: String) throws -> String {
        try checkFolder(directory)
        if let bytes = try read(path: path) {
            let text = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first ?? ""
            if WebAccessPolicy.isWellFormedToken(text) { return String(text) }
        }
        let token = WebAccessPolicy.makeToken()
        try makeDirectory(directory)
        try write(path: path, bytes: Array((token + "\n").utf8))
        return token
    }
}
