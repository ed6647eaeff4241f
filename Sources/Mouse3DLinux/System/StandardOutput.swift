import Glibc
import SystemPackage

/// Standard output through C's stdio buffer (what Swift's `print` writes to).
public enum StandardOutput {
    /// Pushes out what `print` has buffered (`fflush(3)`), so a waiting command's instructions are
    /// seen at once, also through a pipe.
    public static func flush() { fflush(nil) }  // nil: every output stream, stdout among them
}
