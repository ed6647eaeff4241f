import Mouse3DCore
import Mouse3DLinux

/// Says which sources had datagrams refused, boundedly: the first refusal of each of a few sources
/// at once, then a count every ten seconds per such source; the rest summed once per interval, so
/// that a flood from many addresses makes one line, not one per address.
struct RefusalReports {
    /// What to say.
    enum Report {
        /// `count` refusals from `source` since its last report; the latest reason, and the paired sender's id it claimed.
        case source(SocketAddress, count: UInt64, reason: Refusal, claimedSender: [UInt8]?)
        /// The interval's refusals from sources beyond those reported one by one: how many sources (at least), and why.
        case elsewhere(sources: Int, reasons: RefusalCounts)
    }

    /// How long an interval is.
    static let interval: UInt64 = 10_000_000_000
    /// Sources reported one by one per interval, and at most tracked.
    static let sourcesReportedPerInterval = 8, sourcesTracked = 64

    private var sources: [SocketAddress: (count: UInt64, next: UInt64)] = [:]
    private var end: UInt64 = 0
    private var newSources = 0
    private var others = RefusalCounts()
    private var otherSources: Set<SocketAddress> = []

    /// When the current interval ends, if it has refusals to sum.
    var pendingDeadline: UInt64? { others.isEmpty ? nil : end }

    /// Notes a refusal from `source` at `now`; `say` gets what is due.
    mutating func note(
        from source: SocketAddress, reason: Refusal, claimed: [UInt8]?, now: UInt64, _ say: (Report) throws -> Void
    ) rethrows {
        try check(now: now, say)
        if var report = sources[source] {
            report.count += 1
            if now >= report.next {
                try say(.source(source, count: report.count, reason: reason, claimedSender: claimed))
                report = (0, now + Self.interval)
            }
            sources[source] = report
        } else if sources.count < Self.sourcesTracked && newSources < Self.sourcesReportedPerInterval {
            newSources += 1
            try say(.source(source, count: 1, reason: reason, claimedSender: claimed))
            sources[source] = (0, now + Self.interval)
        } else {
            others.add(reason)
            if otherSources.count < 1024 { otherSources.insert(source) }
        }
    }

    /// Says the refusals summed so far (at the end of a run: nothing goes unsaid).
    mutating func flush(_ say: (Report) throws -> Void) rethrows {
        guard !others.isEmpty else { return }
        try say(.elsewhere(sources: otherSources.count, reasons: others))
        others = RefusalCounts()
        otherSources = []
    }

    /// Ends the interval if it is over at `now`.
    mutating func check(now: UInt64, _ say: (Report) throws -> Void) rethrows {
        if now >= end { try endInterval(now: now, say) }
    }

    /// Sums up the interval's other refusals and starts the next; forgets quiet sources.
    private mutating func endInterval(now: UInt64, _ say: (Report) throws -> Void) rethrows {
        try flush(say)
        sources = sources.filter { $0.value.count > 0 || $0.value.next > now }
        end = now + Self.interval
        newSources = 0
    }
}
