/// When a receiver's socket reads it on a timer instead of waking it for every datagram.
///
/// Each wake-up costs the receiver the same three system calls however much it reads (the wait,
/// `recvmmsg`, the output's `write`), and with many senders interleaved most wake-ups find one
/// datagram: at 64 senders × 1 kHz a receiver woke 47,000 times a second for 64,000 datagrams, and
/// three quarters of its CPU was the kernel's (perf, docs/measurements.md). A burst from one sender
/// on another core comes the same way: 50 `sendto` calls in a row were read by 14 wake-ups.
///
/// So, as Linux's NAPI does for a network card: while the rate is high (over the last ``window`` a
/// read every ``interval`` would have found at least 1.5 datagrams), a read that finds two or more
/// stops the socket waking the loop, and the socket is read every ``interval`` from then on for as
/// long as those timed reads find something; two in a row that find nothing (the burst is over),
/// or a first that finds nothing (the burst had all come by the wake-up; then none starts again for
/// a window), give the socket back its wake-ups. A datagram then waits at most ``interval`` longer.
/// At a low rate (one sender, eight, sixteen) nothing changes: every datagram wakes the loop.
///
/// Pure: the caller pauses the socket's watch on ``Change/coalesce``, resumes it on
/// ``Change/wakeOnEach``, schedules ``nextRead`` and reports every read. Datagrams refused count too
/// (reading them is the cost saved): a flood of junk at 30,000/s can make a receiver coalesce, which
/// delays a paired stream by at most ``interval``.
public struct WakeUpCoalescing: Sendable, Equatable {
    /// What the caller changes.
    public enum Change: Sendable, Equatable {
        /// Stop waking on the socket; read it at ``WakeUpCoalescing/nextRead``.
        case coalesce
        /// Wake on the socket again.
        case wakeOnEach
    }

    /// The time between timed reads while coalescing (the most a datagram waits for one), in
    /// nanoseconds.
    public let interval: UInt64
    /// How long the rate is measured before each decision on it, in nanoseconds.
    public let window: UInt64
    /// Whether the socket is read on a timer now.
    public private(set) var isCoalescing = false
    /// Whether the last window's rate was high enough for reads to be coalesced (the caller may keep
    /// its timers precise meanwhile).
    public private(set) var isRateHigh = false
    /// When the socket is read next while coalescing (nil while it wakes the loop).
    public private(set) var nextRead: UInt64?
    /// How many times it started coalescing (for figures and tests).
    public private(set) var coalescingPeriods = 0
    private var windowStart: UInt64?
    private var datagrams = 0
    /// Timed reads in this period, and how many of the last found nothing.
    private var timedReads = 0
    private var emptyReads = 0
    /// No period starts before this (after one that read nothing past its wake-up).
    private var startsAgainAt: UInt64 = 0

    /// Starts waking the loop for every datagram, until a window shows a rate high enough.
    public init(interval: UInt64 = Self.defaultInterval, window: UInt64 = 1_000_000) {
        precondition(interval > 0 && window >= interval, "the window holds at least one interval")
        self.interval = interval
        self.window = window
    }

    /// 50 µs: at 64 senders × 1 kHz a timed read finds about three datagrams; for one sender at
    /// 1 kHz nothing changes (it never coalesces). See docs/measurements.md for the trade measured.
    public static let defaultInterval: UInt64 = 50_000

    /// Never coalesces from now on (``read(_:at:more:)`` changes nothing): for a loop whose timed
    /// waits end only on whole milliseconds (`epoll_pwait` where `epoll_pwait2` is missing), where a
    /// 50 µs read would come a millisecond late. Returns the change to make if it was coalescing.
    public mutating func disable() -> Change? {
        isDisabled = true
        isRateHigh = false
        windowStart = nil
        nextRead = nil
        guard isCoalescing else { return nil }
        isCoalescing = false
        return .wakeOnEach
    }

    /// Whether ``disable()`` was called.
    public private(set) var isDisabled = false

    /// A read of the socket at `now` found `count` datagrams (on a wake-up by the socket, or a timed
    /// read while coalescing); `more`: it stopped at its bound with datagrams still waiting, so a
    /// timed read comes again at once (a flood is read as fast as the socket wakes the loop for it,
    /// not a batch every interval). Returns what to change, if anything.
    public mutating func read(_ count: Int, at now: UInt64, more: Bool = false) -> Change? {
        guard !isDisabled else { return nil }
        measure(count, at: now)
        if isCoalescing {
            // A timed read. Nothing came in an interval (the burst is over), or the rate fell:
            // the socket wakes the loop again.
            timedReads += 1
            emptyReads = count > 0 || more ? 0 : emptyReads + 1
            // Two empty in a row end it (one alone, at 1.5 datagrams an interval, comes every fifth
            // read and would switch back and forth); the first timed read finding nothing ends it
            // at once (the burst had all come by the wake-up).
            guard isRateHigh && emptyReads < (timedReads == 1 ? 1 : 2) else {
                isCoalescing = false
                nextRead = nil
                // A period that read nothing after its wake-up bought nothing (a burst that was
                // all there, or two junk datagrams from anyone): none starts again for a window,
                // so that such bursts cannot make every one cost two switches and an empty read.
                if timedReads == 1 && emptyReads == 1 { startsAgainAt = now &+ window }
                return .wakeOnEach
            }
            nextRead = more ? now : now &+ interval
            return nil
        }
        // A wake-up that found more than the one that woke it: they come faster than the loop
        // wakes for them.
        guard isRateHigh && (count >= 2 || more) && (more || now >= startsAgainAt) else { return nil }
        isCoalescing = true
        emptyReads = 0
        timedReads = 0
        coalescingPeriods += 1
        nextRead = more ? now : now &+ interval
        return .coalesce
    }

    /// When, with no read since, the rate is taken as low (two windows after the last decision,
    /// while it is high and the socket wakes the loop): so that the caller's precise timers end
    /// once a flood stops, though no read comes to close the window. Nil when nothing is due.
    public var idleDeadline: UInt64? {
        guard isRateHigh, !isCoalescing, let start = windowStart else { return nil }
        return start &+ 2 &* window
    }

    /// No read came by ``idleDeadline``: the rate is low. Returns whether that changed it.
    public mutating func idle(at now: UInt64) -> Bool {
        guard let due = idleDeadline, now >= due else { return false }
        isRateHigh = false
        windowStart = nil
        datagrams = 0
        return true
    }

    /// Counts the datagrams over the window and decides on the rate at its end: high from 1.5
    /// datagrams an interval, low again below 1.25 (the margin keeps a rate near the bound from
    /// switching back and forth).
    private mutating func measure(_ count: Int, at now: UInt64) {
        guard let start = windowStart, now > start else {
            // The first read, or one at the window's start instant: it starts the window.
            windowStart = now
            datagrams = count
            return
        }
        datagrams += count
        let elapsed = now - start
        guard elapsed >= window else { return }
        let perInterval = Double(datagrams) * Double(interval) / Double(elapsed)
        isRateHigh = isRateHigh ? perInterval >= 1.25 : perInterval >= 1.5
        windowStart = now
        datagrams = 0
    }
}
