import Histogram

/// Latencies in nanoseconds, kept in an HDR histogram (3 significant digits, 0.1 µs to 10 s: what is
/// printed is in tenths of a microsecond, and telling nanoseconds apart took 25,600 counters, 200 kB
/// of a 1 kHz receiver's 10 MiB, against 19,456 now).
public struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 100, highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)

    /// What arrives this long after the first arrival is what counts (a benchmark's warm-up: the
    /// first frames of a sealed session wait, by design, for its state to be stored).
    public let warmUpNanoseconds: UInt64
    /// When arrivals start to count (set by the first).
    private var countsFrom: UInt64?
    /// Arrivals left out as the warm-up's.
    public private(set) var warmedUp = 0

    /// An empty recorder whose first `warmUpNanoseconds` of arrivals do not count.
    public init(warmUpNanoseconds: UInt64 = 0) { self.warmUpNanoseconds = warmUpNanoseconds }

    /// Whether what arrived at `now` counts: false within the warm-up (and counted as left out).
    public mutating func counts(arrivedAt now: UInt64) -> Bool {
        let from = countsFrom ?? now &+ warmUpNanoseconds
        countsFrom = from
        if now >= from { return true }
        warmedUp += 1
        return false
    }

    /// Records one latency (values past 10 s are clamped).
    public mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(min(nanoseconds, 10_000_000_000))
    }

    /// How many latencies were recorded.
    public var count: UInt64 { histogram.totalCount }

    /// The latency at `percentile` (0–100), in nanoseconds.
    public func percentile(_ percentile: Double) -> UInt64 { histogram.valueAtPercentile(percentile) }

    /// The largest latency recorded, in nanoseconds.
    public var maximum: UInt64 { histogram.max }

    /// `p50 12.3 µs, p99 45.6 µs, max 78.9 µs (N frames)`, and how many the warm-up left out.
    public var summary: String {
        func micro(_ ns: UInt64) -> String {
            let tenths = (ns + 50) / 100
            return "\(tenths / 10).\(tenths % 10) µs"
        }
        let warmUp = warmedUp == 0 ? "" : " (after the first \(warmedUp) frames, the warm-up)"
        return "p50 \(micro(percentile(50))), p99 \(micro(percentile(99))), max \(micro(maximum)) (\(count) frames)"
            + warmUp
    }
}
