/// Token buckets per source, for refusing a flood cheaply: each source may spend `burst` tokens at
/// once and earns `ratePerSecond` back. The table holds at most `capacity` sources; when it is full
/// the ones that have been quiet longest are forgotten first (so spoofed sources cannot grow it).
public struct SourceRateLimiter<Source: Hashable>: Sendable where Source: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: UInt64
    }

    /// Tokens earned per second.
    public let ratePerSecond: Double
    /// Most tokens a source can hold.
    public let burst: Double
    /// Most sources remembered.
    public let capacity: Int
    private var buckets: [Source: Bucket] = [:]

    /// A limiter allowing `ratePerSecond` (after an initial `burst`) per source.
    public init(ratePerSecond: Double, burst: Double, capacity: Int = 4096) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.capacity = capacity
    }

    /// Whether `source` may spend one token at `now` (nanoseconds); spends it if so.
    public mutating func allow(_ source: Source, now: UInt64) -> Bool {
        var bucket = buckets[source] ?? Bucket(tokens: burst, updated: now)
        if now > bucket.updated {
            bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.updated) * 1e-9 * ratePerSecond)
            bucket.updated = now
        }
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 }
        if buckets[source] == nil && buckets.count >= capacity { evictQuietest() }
        buckets[source] = bucket
        return allowed
    }

    /// Whether `source` has tokens left, without spending any.
    public func wouldAllow(_ source: Source, now: UInt64) -> Bool {
        guard let bucket = buckets[source] else { return true }
        let earned = now > bucket.updated ? Double(now - bucket.updated) * 1e-9 * ratePerSecond : 0
        return bucket.tokens + earned >= 1
    }

    /// How many sources are remembered.
    public var count: Int { buckets.count }

    private mutating func evictQuietest() {
        let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(capacity / 2)
        buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
