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
    /// The second's text (`2026-11-22T01:50:00`) in place, not a string: copying a string to the
    /// line's writer was a retain and a release a line.
    @exclusivity(unchecked) private var secondText: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    @exclusivity(unchecked) private var secondLength = 0
    /// The wall clock and the monotonic clock read together, at most ``anchorNanoseconds`` ago (by
    /// the frames' arrival): a line's time is when its frame arrived, put on the wall clock's
    /// scale from this, not a read of the wall clock per line (about 1.5 % of a receiver's CPU at
    /// 50,000 frames/s: `perf`).
    @exclusivity(unchecked) private var anchor: (wall: UInt64, monotonic: UInt64)?
    /// How long an anchor serves: a wall clock stepped (NTP, by hand) shows in the lines within it,
    /// and one slewed drifts from it by at most its slew rate over it (5 µs at ntpd's 500 ppm).
    static let anchorNanoseconds: UInt64 = 10_000_000

    /// Prints to `output` (standard output by default) in `format`.
    public init(format: AttitudePrintFormat, output: BufferedOutput = BufferedOutput()) {
        self.format = format
        self.output = output
    }

    public func write(_ update: AttitudeUpdate) throws {
        let wall = wallNanoseconds(arrival: update.receivedNanoseconds)
        let s = wall / 1_000_000_000
        if format == .jsonl {
            return try output.writeLine(atMost: AttitudePrintFormat.jsonlLineCapacity(update)) {
                AttitudePrintFormat.writeJSONLine(update, wallNanoseconds: wall, at: $0)
            }
        }
        if s != second {
            second = s
            let text = Array(WallClock.iso8601(nanoseconds: s * 1_000_000_000).utf8.prefix(19))
            secondLength = text.count
            withUnsafeMutableBytes(of: &secondText) { $0.copyBytes(from: text) }
        }
        let secondText = secondText
        let length = secondLength
        try withUnsafeBytes(of: secondText) { raw in
            let text = UnsafeRawBufferPointer(rebasing: raw[0..<length])
            try output.writeLine(atMost: AttitudePrintFormat.textLineCapacity(update, second: length)) {
                AttitudePrintFormat.writeTextLine(update, wallNanoseconds: wall, second: text, at: $0)
            }
        }
    }

    /// When a frame that arrived at `arrival` (monotonic) arrived, on the wall clock.
    private func wallNanoseconds(arrival: UInt64) -> UInt64 {
        let a: (wall: UInt64, monotonic: UInt64)
        if let current = anchor, arrival &- current.monotonic < Self.anchorNanoseconds {
            a = current
        } else {
            a = (WallClock.nanoseconds(), MonotonicClock.nanoseconds())
            anchor = a
        }
        // A frame that arrived before the anchor was read (one held for its session's store) makes
        // a new anchor above, later than it: wrapping arithmetic puts it before.
        return a.wall &- (a.monotonic &- arrival)
    }

    public func endOfBatch() throws { try output.flush() }

    public func finish() { try? output.flush() }
}
