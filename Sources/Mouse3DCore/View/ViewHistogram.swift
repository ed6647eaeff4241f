/// Counts of durations in fixed buckets over a sliding window of 10 s (two halves of 5 s: what is
/// shown covers the last 5 to 10 s), for the page's histograms. Fixed size whatever arrives.
public struct ViewHistogram: Sendable, Equatable {
    /// Upper bucket edges in microseconds; a last bucket takes everything from 50 ms up.
    public static let edgesMicroseconds: [UInt64] = [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]
    /// How long a half of the window lasts.
    public static let halfWindowNanoseconds: UInt64 = 5_000_000_000
    var current = [UInt32](repeating: 0, count: edgesMicroseconds.count + 1)
    var previous = [UInt32](repeating: 0, count: edgesMicroseconds.count + 1)
    var halfStarted: UInt64?

    /// An empty histogram.
    public init() {}

    /// Counts `duration` (ns) at time `now` (monotonic ns).
    public mutating func record(_ duration: UInt64, at now: UInt64) {
        let started = halfStarted ?? now
        if now &- started >= Self.halfWindowNanoseconds {
            previous =
                now &- started >= 2 * Self.halfWindowNanoseconds
                ? [UInt32](repeating: 0, count: current.count) : current
            current = [UInt32](repeating: 0, count: current.count)
            halfStarted = now
        } else if halfStarted == nil {
            halfStarted = now
        }
        let micro = duration / 1000
        let bucket = Self.edgesMicroseconds.firstIndex { micro < $0 } ?? Self.edgesMicroseconds.count
        current[bucket] &+= 1
    }

    /// The counts per bucket over the window.
    public var counts: [UInt32] { zip(current, previous).map { $0 &+ $1 } }
    /// How many durations the window holds.
    public var total: Int { counts.reduce(0) { $0 + Int($1) } }
    /// The counts as a JSON array.
    public var json: String { "[" + counts.map(String.init).joined(separator: ",") + "]" }
}
