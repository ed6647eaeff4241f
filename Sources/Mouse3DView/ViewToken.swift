import Mouse3DCore
import Mouse3DLinux

/// The view's token, kept in the user's mouse3d folder (mode 0600) so that a bookmarked URL and a
/// page left open work after a restart. Deleting the file revokes it: the next start makes another.
public enum ViewToken {
    /// The token file inside `directory`.
    public static func path(in directory: String) -> String { directory + "/view.token" }

    /// Reads the token from `directory`, making it (and the folder) on first use or when the file
    /// does not hold one.
    public static func loadOrCreate(in directory: String) throws -> String {
        let path = path(in: directory)
        try SecretFile.checkFolder(directory)
        if let bytes = try SecretFile.read(path: path) {
            let text = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first ?? ""
            if ViewAccessPolicy.isWellFormedToken(text) { return String(text) }
        }
        let token = ViewAccessPolicy.makeToken()
        try SecretFile.makeDirectory(directory)
        try SecretFile.write(path: path, bytes: Array((token + "\n").utf8))
        return token
    }
}
