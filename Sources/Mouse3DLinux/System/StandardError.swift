import Glibc
import SystemPackage

/// Unbuffered messages on standard error.
public enum StandardError {
    /// Writes `text` at once (`write(2)` on descriptor 2, retried on `EINTR`); failures are ignored,
    /// as there is nowhere left to report them.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = try? bytes.withUnsafeMutableBytes { try FileDescriptor.standardError.writeAll(UnsafeRawBufferPointer($0)) }
    }

    /// Whether standard error is a terminal (`isatty(3)`).
    public static var isTerminal: Bool { isatty(2) == 1 }
}

/// Standard output through C's stdio buffer (what Swift's `print` writes to).
public enum StandardOutput {
    /// Pushes out what `print` has buffered (`fflush(3)`), so a waiting command's instructions are
    /// seen at once, also through a pipe.
    public static func flush() { fflush(nil) }  // nil: every output stream, stdout among them
}
