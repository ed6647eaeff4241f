import Mouse3DCore

/// Prints every update as a line on standard output (``AttitudePrintFormat``), written out at the end
/// of each batch. Owned by the event loop's thread.
public final class PrintOutput: AttitudeSink {
    /// The format (a configuration reload may change it).
    @exclusivity(unchecked) public var format: AttitudePrintFormat
    private let output: BufferedOutput
    // Touched only by the loop's thread, never across a call that reaches them again: no run-time
    // exclusivity checks (two a printed frame).
    @exclusivity(unchecked) private var second: UInt64 = .max
    @exclusivity(unchecked) private var secondText = ""

    /// Prints to `output` (standard output by default) in `format`.
    public init(format: AttitudePrintFormat, output: BufferedOutput = BufferedOutput()) {
        self.format = format
        self.output = output
    }

    public func write(_ update: AttitudeUpdate) throws {
        let wall = WallClock.nanoseconds()
        let s = wall / 1_000_000_000
        if s != second {
            second = s
            secondText = String(WallClock.iso8601(nanoseconds: s * 1_000_000_000).prefix(19))
        }
        let format = format
        if format == .jsonl {
            // No copy of the second's text, which this line does not use (a retain and a release).
            return try output.writeLine { AttitudePrintFormat.appendJSONLine(update, wallNanoseconds: wall, to: &$0) }
        }
        let secondText = secondText
        try output.writeLine { format.append(update, wallNanoseconds: wall, secondText: secondText, to: &$0) }
    }

    public func endOfBatch() throws { try output.flush() }

    public func finish() { try? output.flush() }
}
