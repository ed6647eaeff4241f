/// The last `capacity` durations (a ring: fixed memory), and their median and 99th percentile.
public struct RecentDurations: Sendable {
    var values: [UInt64] = []
    var next = 0
    public let capacity: Int

    public init(capacity: Int) { self.capacity = capacity }

    /// How many are held.
    public var count: Int { values.count }

    /// Holds `nanoseconds`, forgetting the oldest once full.
    public mutating func record(_ nanoseconds: UInt64) {
        if values.count < capacity {
            values.append(nanoseconds)
        } else {
            values[next] = nanoseconds
            next = (next + 1) % capacity
        }
    }

    /// The duration below which `fraction` of those held fall (nearest rank).
    public func percentile(_ fraction: Double) -> UInt64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
    }

    /// `p50 4.1 ms, p99 12.0 ms (last N)`.
    public var summary: String {
        func ms(_ v: UInt64) -> String { fixed(Double(v) / 1e6, 1) }
        return "p50 \(ms(percentile(0.5))) ms, p99 \(ms(percentile(0.99))) ms (last \(values.count))"
    }
}
