/// Token buckets per source, for refusing a flood cheaply: each source may spend `burst` tokens at
/// once and earns `ratePerSecond` back. The table holds at most `capacity` sources; when it is full
/// the ones that have been quiet longest are forgotten first (so spoofed sources cannot grow it).
public struct SourceRateLimiter<Source: Hashable>: Sendable where Source: Sendable {
    private typealias Bucket = TokenBucket

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
        var bucket = buckets[source] ?? TokenBucket(ratePerSecond: ratePerSecond, burst: burst, now: now)
        let allowed = bucket.take(now: now)
        if buckets[source] == nil && buckets.count >= capacity { evictQuietest() }
        buckets[source] = bucket
        return allowed
    }

    /// Whether `source` has tokens left, without spending any.
    public func wouldAllow(_ source: Source, now: UInt64) -> Bool {
        buckets[source]?.wouldAllow(now: now) ?? true
    }

    /// How many sources are remembered.
    public var count: Int { buckets.count }

    private mutating func evictQuietest() {
        let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(capacity / 2)
        buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
