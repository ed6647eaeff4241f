import Glibc

/// A progress line for long work, on standard error when it is a terminal: rewritten in place at
/// most five times a second, ended with a newline. When standard error is a pipe or a file (a
/// service's journal, a script) it writes nothing, so logs get the start and end lines only.
public final class TerminalProgress {
    private let write: (String) -> Void
    private let enabled: Bool
    private var shown = false
    private var last: UInt64 = 0

    /// Progress on standard error if it is a terminal (`isatty(2)`).
    public convenience init() {
        self.init(enabled: isatty(2) == 1, write: StandardError.write)
    }

    /// Progress through `write`, shown only when `enabled`.
    public init(enabled: Bool, write: @escaping (String) -> Void) {
        self.enabled = enabled
        self.write = write
    }

    deinit { finish() }  // an error thrown past it prints on a clean line

    /// Shows `text` (replacing the line shown before) unless one was shown under 200 ms ago at `now`.
    public func update(_ text: String, now: UInt64 = MonotonicClock.nanoseconds()) {
        guard enabled, !shown || now >= last + 200_000_000 else { return }
        write("\r\u{1B}[K" + text)
        shown = true
        last = now
    }

    /// Ends the line, if one was shown (before the next ordinary message).
    public func finish() {
        guard enabled, shown else { return }
        write("\r\u{1B}[K")
        shown = false
    }
}
