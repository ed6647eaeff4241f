/// Messages for the user on standard error (`mouse3d: ...`), unless quiet. Cheap to copy.
public struct Diagnostics: Sendable {
    /// Whether only errors are shown (they go through thrown errors, not through this).
    public var quiet: Bool

    /// Messages on standard error unless `quiet`.
    public init(quiet: Bool) { self.quiet = quiet }

    /// Writes `message` as one line.
    public func say(_ message: String) {
        guard !quiet else { return }
        StandardError.write("mouse3d: \(message)\n")
    }
}
