/// One token bucket: `burst` tokens at once, `ratePerSecond` earned back, time in nanoseconds.
public struct TokenBucket: Sendable {
    /// Tokens earned per second, and the most held.
    public let ratePerSecond: Double, burst: Double
    /// Tokens held as of `updated`.
    public private(set) var tokens: Double
    /// When `tokens` was last brought up to date.
    public private(set) var updated: UInt64

    /// A full bucket at `now`.
    public init(ratePerSecond: Double, burst: Double, now: UInt64) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        tokens = burst
        updated = now
    }

    /// Spends one token at `now` if there is one; whether there was.
    public mutating func take(now: UInt64) -> Bool {
        if now > updated {
            tokens = min(burst, tokens + Double(now - updated) * 1e-9 * ratePerSecond)
            updated = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whether a token could be spent at `now`, spending none.
    public func wouldAllow(now: UInt64) -> Bool {
        tokens + (now > updated ? Double(now - updated) * 1e-9 * ratePerSecond : 0) >= 1
    }

    /// Spends `amount` at `now`, whatever is held (the level may go below zero: a cost known only
    /// once it is paid, such as a handshake step's time, is paid back before the next is allowed).
    public mutating func charge(_ amount: Double, now: UInt64) {
        if now > updated {
            tokens = min(burst, tokens + Double(now - updated) * 1e-9 * ratePerSecond)
            updated = now
        }
        tokens -= amount
    }

    /// When a token can next be spent: a fixed time, in the past when one can already be (a timer
    /// due at it fires at once; one due at "now", read afresh each time it is asked, never would).
    public var nextTokenTime: UInt64 {
        guard tokens < 1 else { return updated }
        return updated + UInt64(((1 - tokens) / ratePerSecond * 1e9).rounded(.up))
    }
}
