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
