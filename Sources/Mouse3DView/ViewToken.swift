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
        try SecretFile.loadOrCreateToken(path: path(in: directory), in: directory)
    }
}
