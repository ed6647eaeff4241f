import Glibc

/// Small file-system facts and actions.
public enum FileSystem {
    /// The path of the running executable (`readlink("/proc/self/exe")`).
    public static func executablePath() throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = try SystemCall.retrying("readlink", "/proc/self/exe") { readlink("/proc/self/exe", &buffer, buffer.count - 1) }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the file at `path`; a missing file is not an error. `unlink(2)`.
    public static func remove(_ path: String) throws(SystemCallError) {
        _ = try SystemCall.retrying("unlink", path, tolerating: [ENOENT]) { unlink(path) }
    }

    /// The directory for temporary files: `$TMPDIR`, else `/tmp`.
    public static var temporaryDirectory: String {
        if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/tmp"
    }

    /// The process id. `getpid(2)`.
    public static var processID: Int32 { getpid() }
}

extension FileSystem {
    /// The canonical path of `path` (symbolic links resolved), or `nil`. `realpath(3)`.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension FileSystem {
    /// Removes the empty directory at `path` (`rmdir(2)`); a missing one is not an error.
    public static func removeDirectory(_ path: String) throws(SystemCallError) {
        _ = try SystemCall.retrying("rmdir", path, tolerating: [ENOENT]) { rmdir(path) }
    }
}

extension FileSystem {
    /// Whether something exists at `path` (`access(2)`, `F_OK`).
    public static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
