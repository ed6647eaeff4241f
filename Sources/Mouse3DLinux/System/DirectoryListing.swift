import Glibc

/// The names in a directory. The corresponding C calls are `opendir(3)`, `readdir(3)`, `closedir(3)`.
public enum DirectoryListing {
    /// Every entry of `path` except `.` and `..`, unsorted.
    public static func names(in path: String) throws(SystemCallError) -> [String] {
        guard let directory = opendir(path) else {
            throw SystemCallError(call: "opendir", subject: path, errno: .init(rawValue: errno))
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
