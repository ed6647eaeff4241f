/// An output fed at a fixed rate instead of once per update: it keeps the latest update and hands
/// it on at each tick (nothing when nothing new arrived since the last), and the one held back when
/// the source ends. `send --rate` and `run --rate` put their outputs behind one.
public final class PacedOutput: ForwardingOutput {
    /// The output fed at the rate.
    public let inner: any AttitudeOutput
    /// Nanoseconds between updates handed on.
    public let periodNanoseconds: UInt64
    private var nextTick: UInt64
    private var latest: AttitudeUpdate?

    /// Feeds `inner` at most once per `periodNanoseconds`, the first tick due at `start`
    /// (CLOCK_MONOTONIC ns).
    public init(_ inner: any AttitudeOutput, periodNanoseconds: UInt64, start: UInt64) {
        self.inner = inner
        self.periodNanoseconds = max(periodNanoseconds, 1)
        nextTick = start
    }

    /// Feeds `inner` at `hertz` updates per second.
    public convenience init(_ inner: any AttitudeOutput, hertz: Double, start: UInt64) {
        self.init(inner, periodNanoseconds: UInt64(1e9 / hertz), start: start)
    }

    public func write(_ update: AttitudeUpdate) throws { latest = update }

    public var nextDeadline: UInt64? {
        guard latest != nil else { return inner.nextDeadline }
        return min(nextTick, inner.nextDeadline ?? nextTick)
    }

    public func tick(now: UInt64) throws {
        if let update = latest, now >= nextTick {
            latest = nil
            try inner.write(update)
            try inner.endOfBatch()
            nextTick += periodNanoseconds
            if nextTick < now { nextTick = now + periodNanoseconds }  // fell behind: do not burst
        }
        if let d = inner.nextDeadline, d <= now { try inner.tick(now: now) }
    }

    /// The inner output's batches end at its ticks (above), not with the source's.
    public func endOfBatch() throws {}

    public func sourceEnded() throws {
        if let update = latest {
            latest = nil
            try inner.write(update)
            try inner.endOfBatch()
        }
        try inner.sourceEnded()
    }

}
