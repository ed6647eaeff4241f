import Mouse3DCore
import Testing

/// A receiver's reads under ``WakeUpCoalescing``, simulated on exact arrival times: woken `wakeUp`
/// after a datagram arrives while it wakes on each, or at the timed read while coalescing; each read
/// takes everything arrived by then and costs `perRead` plus `perDatagram` each (the policy is told
/// after, as the receiver tells it after its batch is written).
struct ReadSimulation {
    var coalescing = WakeUpCoalescing()
    var wakeUp: UInt64 = 5_000
    var perRead: UInt64 = 3_000
    var perDatagram: UInt64 = 1_500

    struct Outcome {
        var reads = 0
        /// Each datagram's wait from arrival to its read.
        var waits: [UInt64] = []
        var changes: [(at: UInt64, change: WakeUpCoalescing.Change)] = []
        /// Reads after the last datagram was read (timed reads that found nothing).
        var emptyReadsAtEnd = 0
        var coalescingAtEnd = false
        var coalescingPeriods = 0
        var longestWait: UInt64 { waits.max() ?? 0 }
    }

    mutating func run(_ arrivals: [UInt64]) -> Outcome {
        var outcome = Outcome()
        var next = 0
        var now: UInt64 = 0
        var guardReads = 0
        while next < arrivals.count || coalescing.isCoalescing {
            guardReads += 1
            if guardReads > 10_000_000 { break }
            if let due = coalescing.nextRead {
                now = max(now, due)
            } else {
                now = max(now, arrivals[next] + wakeUp)
            }
            var count = 0
            while next < arrivals.count && arrivals[next] <= now {
                outcome.waits.append(now - arrivals[next])
                next += 1
                count += 1
            }
            outcome.reads += 1
            if next == arrivals.count && count == 0 { outcome.emptyReadsAtEnd += 1 }
            now += perRead + perDatagram * UInt64(count)
            if let change = coalescing.read(count, at: now) { outcome.changes.append((now, change)) }
        }
        outcome.coalescingAtEnd = coalescing.isCoalescing
        outcome.coalescingPeriods = coalescing.coalescingPeriods
        return outcome
    }
}

/// `senders` streams at `hertz` each over `seconds`, their phases random and each period jittered
/// by up to ±`jitter` ns.
func interleaved(senders: Int, hertz: Double, seconds: Double, jitter: UInt64, seed: UInt64) -> [UInt64] {
    var random = SplitMix64(seed: seed)
    let period = UInt64(1e9 / hertz)
    var arrivals: [UInt64] = []
    for _ in 0..<senders {
        var t = UInt64.random(in: 0..<period, using: &random) + 1_000_000
        while t < UInt64(seconds * 1e9) {
            arrivals.append(t &+ UInt64.random(in: 0...(2 * jitter), using: &random) &- jitter)
            t += period
        }
    }
    return arrivals.sorted()
}

@Suite("Coalescing a receiver's wake-ups")
struct WakeUpCoalescingTests {
    /// The same arrivals read with coalescing off: one wake-up per read.
    func uncoalescedReads(_ arrivals: [UInt64]) -> Int {
        var plain = ReadSimulation()
        _ = plain.coalescing.disable()
        return plain.run(arrivals).reads
    }

    @Test(
        "64 senders at 1 kHz: reads are coalesced within two windows, a third as many as datagrams, none waits past the interval; once they stop, the second timed read in a row that finds nothing ends it"
    )
    func manySenders() {
        for seed in UInt64(1)...20 {
            var simulation = ReadSimulation()
            let interval = simulation.coalescing.interval
            let arrivals = interleaved(senders: 64, hertz: 1000, seconds: 0.2, jitter: 20_000, seed: seed)
            let outcome = simulation.run(arrivals)
            guard let first = outcome.changes.first else {
                Issue.record("seed \(seed): never coalesced")
                continue
            }
            #expect(first.change == .coalesce && first.at < 3_500_000, "seed \(seed): coalesced at \(first.at) ns")
            // Each switch costs the caller a system call (epoll_ctl): few, against the reads saved.
            #expect(
                outcome.reads * 3 + outcome.changes.count * 3 < arrivals.count,
                "seed \(seed): \(outcome.reads) reads and \(outcome.changes.count) switches for \(arrivals.count) datagrams"
            )
            // A datagram waits at most an interval and a read's cost (a batch of the most that
            // arrive in one interval) after the one before it was read.
            let bound = interval + simulation.perRead + simulation.perDatagram * 16 + simulation.wakeUp
            #expect(outcome.longestWait <= bound, "seed \(seed): waited \(outcome.longestWait) ns")
            #expect(!outcome.coalescingAtEnd)
            #expect(outcome.emptyReadsAtEnd <= 2, "seed \(seed): \(outcome.emptyReadsAtEnd) timed reads found nothing")
        }
    }

    @Test("One sender at 1 kHz, 8 or 16 never coalesce: no datagram waits more than the wake-up")
    func fewSenders() {
        for senders in [1, 8, 16] {
            for seed in UInt64(1)...10 {
                var simulation = ReadSimulation()
                let outcome = simulation.run(
                    interleaved(senders: senders, hertz: 1000, seconds: 0.3, jitter: 50_000, seed: seed))
                #expect(outcome.changes.isEmpty, "\(senders) senders, seed \(seed): \(outcome.changes)")
                #expect(
                    outcome.longestWait <= simulation.wakeUp + simulation.perRead + 4 * simulation.perDatagram,
                    "\(senders) senders, seed \(seed): waited \(outcome.longestWait) ns")
            }
        }
    }

    @Test(
        "Bursts of 50 every millisecond (bench stream's capacity rounds): sent 3 µs apart, read in a few timed reads instead of a wake-up for every two or three, none waiting past the interval; arrived at once, one wake-up and, every other burst, one empty timed read"
    )
    func bursts() {
        // A sender's burst as it leaves: one sendto after another, read on another core.
        let spread = (1...300).flatMap { ms in (0..<50).map { UInt64(ms) * 1_000_000 + UInt64($0) * 3_000 } }
        var simulation = ReadSimulation()
        let outcome = simulation.run(spread)
        let plain = uncoalescedReads(spread)
        #expect(outcome.coalescingPeriods >= 290, "\(outcome.coalescingPeriods) periods for 300 bursts")
        #expect(
            outcome.reads + outcome.changes.count < plain / 2,
            "\(outcome.reads) reads and \(outcome.changes.count) switches; \(plain) reads uncoalesced")
        // A wake-up, three or four timed reads, two that find nothing.
        #expect(outcome.reads <= 300 * 7, "\(outcome.reads) reads for 300 bursts")
        // At most an interval after the read before ended: that read's cost (what came in an
        // interval and during the read before, 3 µs apart) and the interval.
        let bound =
            simulation.coalescing.interval + simulation.perRead + simulation.perDatagram * 30 + simulation.wakeUp
        #expect(outcome.longestWait <= bound, "waited \(outcome.longestWait) ns")
        #expect(!outcome.coalescingAtEnd)

        // A burst that is all there at the wake-up: read at once; the timed read after it finds
        // nothing and gives the wake-ups back.
        var arrivals: [UInt64] = []
        for ms in 1...300 { arrivals += Array(repeating: UInt64(ms) * 1_000_000, count: 50) }
        var again = ReadSimulation()
        let compact = again.run(arrivals)
        // (A period that read nothing past its wake-up blocks the next burst's.)
        #expect(compact.reads <= 450, "\(compact.reads) reads for 300 bursts")
        #expect(compact.longestWait <= again.wakeUp, "waited \(compact.longestWait) ns")
        #expect(!compact.coalescingAtEnd)
    }

    @Test("A rate that falls from 64 kHz to 8 kHz stops coalescing within two windows")
    func rateFalls() {
        let fast = interleaved(senders: 64, hertz: 1000, seconds: 0.05, jitter: 10_000, seed: 3)
        let slow = interleaved(senders: 8, hertz: 1000, seconds: 0.1, jitter: 10_000, seed: 4).map { $0 + 50_000_000 }
        var simulation = ReadSimulation()
        let outcome = simulation.run(fast + slow)
        #expect(outcome.changes.first?.change == .coalesce, "\(outcome.changes)")
        let late = outcome.changes.filter { $0.at > 53_000_000 }
        #expect(late.isEmpty, "switches after the fall: \(late)")
        #expect(outcome.changes.last?.change == .wakeOnEach)
        #expect(!outcome.coalescingAtEnd)
    }

    @Test(
        "From 20 to 64 kHz (many seeds, near the bound too): reads and switches together are at most 1% more than the reads without coalescing, fewer from 30 kHz, a tenth fewer from 35 kHz"
    )
    func neverCostsMore() {
        for senders in [20, 25, 30, 35, 40, 45, 64] {
            for seed in UInt64(1)...8 {
                let arrivals = interleaved(senders: senders, hertz: 1000, seconds: 0.2, jitter: 100_000, seed: seed)
                var simulation = ReadSimulation()
                let outcome = simulation.run(arrivals)
                let plain = uncoalescedReads(arrivals)
                #expect(
                    outcome.reads + outcome.changes.count <= plain + plain / 100,
                    "\(senders) kHz, seed \(seed): \(outcome.reads) reads and \(outcome.changes.count) switches; \(plain) reads uncoalesced"
                )
                if senders >= 30 {
                    #expect(
                        (outcome.reads + outcome.changes.count) * 10 < plain * (senders >= 35 ? 9 : 10),
                        "\(senders) kHz, seed \(seed): \(outcome.reads) reads and \(outcome.changes.count) switches; \(plain) reads uncoalesced"
                    )
                }
            }
        }
    }

    @Test(
        "Datagrams in pairs timed to miss each timed read (65 µs apart, 31 kHz: junk anyone can send) cost at most three reads or switches a millisecond more than without coalescing"
    )
    func pairsMissingTheTimedRead() {
        var arrivals: [UInt64] = []
        for i in UInt64(0)..<3000 {
            let first: UInt64 = 1_000_000 + i * 65_000
            arrivals += [first, first + 1_000]
        }
        var simulation = ReadSimulation()
        let outcome = simulation.run(arrivals)
        let plain = uncoalescedReads(arrivals)
        // A period that reads nothing past its wake-up blocks the next for a window: at most one
        // such (a wake-up's read, an empty timed read, two switches) a millisecond, whatever the rate.
        let milliseconds = Int((arrivals.last! - arrivals.first!) / 1_000_000) + 1
        #expect(
            outcome.reads + outcome.changes.count <= plain + 3 * milliseconds,
            "\(outcome.reads) reads and \(outcome.changes.count) switches; \(plain) reads uncoalesced")
    }

    @Test(
        "A read that stopped at its bound with more waiting is followed by another at once; disabled (waits in whole milliseconds), it never coalesces again"
    )
    func moreAndDisabled() {
        var coalescing = WakeUpCoalescing()
        var now: UInt64 = 1_000_000
        var change: WakeUpCoalescing.Change?
        // 64 kHz spread out: two datagrams every 30 µs, each read its own wake-up.
        while change == nil && now < 10_000_000 {
            now += 30_000
            change = coalescing.read(2, at: now)
        }
        #expect(change == .coalesce)
        #expect(coalescing.nextRead == now + coalescing.interval)
        #expect(coalescing.read(4096, at: now + 10_000, more: true) == nil)
        #expect(coalescing.nextRead == now + 10_000, "a read cut short is done again at once")
        #expect(coalescing.read(3, at: now + 20_000) == nil)
        #expect(coalescing.nextRead == now + 20_000 + coalescing.interval)

        #expect(coalescing.disable() == .wakeOnEach)
        #expect(!coalescing.isCoalescing && coalescing.nextRead == nil && coalescing.isDisabled)
        for i in UInt64(1)...1000 { #expect(coalescing.read(5, at: now + 20_000 + i * 10_000) == nil) }
        #expect(!coalescing.isCoalescing)
        #expect(coalescing.disable() == nil, "not coalescing: nothing to change")
    }

    @Test("A high rate that stops with no read to close its window is taken as low two windows on")
    func idleAfterFlood() {
        var coalescing = WakeUpCoalescing()
        var now: UInt64 = 1_000_000
        // One datagram a wake-up, every 20 µs (50 kHz, never two at once: no period starts).
        while !coalescing.isRateHigh && now < 10_000_000 {
            now += 20_000
            #expect(coalescing.read(1, at: now) == nil)
        }
        #expect(coalescing.isRateHigh && !coalescing.isCoalescing)
        guard let due = coalescing.idleDeadline else {
            Issue.record("no idle deadline while the rate is high")
            return
        }
        #expect(due > now && due <= now + 2 * coalescing.window)
        let early = coalescing.idle(at: due - 1)
        #expect(!early, "not before its deadline")
        let idle = coalescing.idle(at: due)
        #expect(idle)
        #expect(!coalescing.isRateHigh && coalescing.idleDeadline == nil)
        let again = coalescing.idle(at: due + 10_000_000)
        #expect(!again, "once")
    }

    @Test("A window's decision uses the time it spanned: reads at one instant decide nothing")
    func sameInstant() {
        var coalescing = WakeUpCoalescing()
        for _ in 0..<1000 { #expect(coalescing.read(64, at: 5_000_000) == nil) }
        #expect(!coalescing.isCoalescing && !coalescing.isRateHigh)
        #expect(coalescing.nextRead == nil)
    }
}
