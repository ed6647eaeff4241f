import Glibc

/// Small file-system facts and actions.
public enum FileSystem {
    /// The path of the running executable (`readlink("/proc/self/exe")`).
    public static func executablePath() throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = try SystemCall.retrying("readlink", "/proc/self/exe") {
            readlink("/proc/self/exe", &buffer, buffer.count - 1)
        }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the file at `path`; a missing file is not an error. `unlink(2)`.
    public static func remove(_ path: String) throws(SystemCallError) {
        _ = try SystemCall.retrying("unlink", path, tolerating: [ENOENT]) { unlink(path) }
    }

    /// The directory for temporary files: `$TMPDIR`, else `/tmp`.
    public static var temporaryDirectory: String { environment("TMPDIR") ?? "/tmp" }

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

    /// Whether this user may read `path` (`access(2)`, `R_OK`).
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Whether this process may run the file at `path`.
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }
}

extension FileSystem {
    /// The value of environment variable `name`, if set and not empty.
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// This user's home: `$HOME` when it is an absolute path, else the password database's entry
    /// (a system service, `ip netns exec` or a cron job may run with no HOME: the files still go
    /// where that user's others are, not to /.config).
    public static var homeDirectory: String {
        if let home = environment("HOME"), home.hasPrefix("/") { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            let path = String(cString: directory)
            if path.hasPrefix("/") { return path }
        }
        return "/"
    }

    /// `homeDirectory` + `path` (which starts with "/"), without a double slash for a home of "/".
    public static func inHome(_ path: String) -> String {
        let home = homeDirectory
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + path
    }

    /// The user's configuration directory for mouse3d: `$XDG_CONFIG_HOME/mouse3d`, else
    /// `$HOME/.config/mouse3d`.
    public static var userConfigurationDirectory: String {
        if let xdg = environment("XDG_CONFIG_HOME"), xdg.hasPrefix("/") { return xdg + "/mouse3d" }
        return inHome("/.config/mouse3d")
    }

    /// The name of this machine (`gethostname(2)`).
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension FileSystem {
    /// Sets environment variable `name` (or removes it, for nil) for this process and the children
    /// it starts (`setenv(3)`, `unsetenv(3)`).
    /// Call it before starting threads.
    public static func setEnvironment(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
}

extension FileSystem {
    /// Every environment variable of this process (`environ`).
    public static var environmentVariables: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
