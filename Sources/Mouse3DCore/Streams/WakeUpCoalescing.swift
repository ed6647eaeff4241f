/// When a receiver's socket reads it on a timer instead of waking it for every datagram.
///
/// Each wake-up costs the receiver the same three system calls however much it reads (the wait,
/// `recvmmsg`, the output's `write`), and with many senders interleaved most wake-ups find one
/// datagram: at 64 senders × 1 kHz a receiver woke 47,000 times a second for 64,000 datagrams, and
/// three quarters of its CPU was the kernel's (perf, docs/measurements.md). Once datagrams come often
/// enough that a read every ``interval`` would find several, the socket stops waking the loop and is
/// read every ``interval`` (what NAPI and a network card's adaptive interrupt moderation do): a
/// datagram then waits at most ``interval`` longer. It goes back to waking the loop as soon as the
/// reads find about one datagram each, so a stream of a few senders, or bursts (50 datagrams every
/// millisecond: one wake-up reads them all), never wait.
///
/// Decided once per ``window`` from that window's reads. Pure: the caller pauses the socket's watch,
/// schedules ``nextRead`` and reports every read. Datagrams refused count too (reading them is the
/// cost saved): a flood of junk at 40,000/s can make a receiver coalesce, which delays a paired
/// stream by at most ``interval``.
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
    /// How long reads are counted before each decision, in nanoseconds.
    public let window: UInt64
    /// Whether the socket is read on a timer now.
    public private(set) var isCoalescing = false
    /// When the socket is read next while coalescing (nil while it wakes the loop).
    public private(set) var nextRead: UInt64?
    /// How many times it started coalescing (for figures and tests).
    public private(set) var coalescingPeriods = 0
    private var windowStart: UInt64?
    private var reads = 0
    private var datagrams = 0

    /// Starts waking the loop for every datagram, until the reads show a rate high enough.
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
        if isCoalescing { nextRead = more ? now : now &+ interval }
        guard let start = windowStart, now > start else {
            windowStart = now
            reads = 1
            datagrams = count
            return nil
        }
        reads += 1
        datagrams += count
        let elapsed = now - start
        guard elapsed >= window else { return nil }
        defer {
            windowStart = now
            reads = 0
            datagrams = 0
        }
        if isCoalescing {
            // Reads find fewer than 1.25 datagrams each: the rate fell (or stopped) and coalescing
            // only delays them.
            guard datagrams * 4 < reads * 5 else { return nil }
            isCoalescing = false
            nextRead = nil
            return .wakeOnEach
        }
        // A read every interval would find at least 1.5 datagrams, and would take the place of at
        // least 1.5 wake-ups (bursts are read by a wake-up or a few: no gain). The margin between
        // 1.5 and 1.25 keeps a rate near the bound from switching back and forth.
        let wouldFind = Double(datagrams) * Double(interval) / Double(elapsed)
        let wakeUpsPerInterval = Double(reads) * Double(interval) / Double(elapsed)
        guard wouldFind >= 1.5 && wakeUpsPerInterval >= 1.5 else { return nil }
        isCoalescing = true
        coalescingPeriods += 1
        nextRead = more ? now : now &+ interval
        return .coalesce
    }
}
