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
    @Test(
        "64 senders at 1 kHz: reads are coalesced within two windows, a third as many as datagrams, none waits past the interval; two windows after they stop it wakes on each"
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
            // Until the traffic stops, it stays coalescing.
            #expect(
                outcome.changes.dropFirst().allSatisfy { $0.at > 200_000_000 }, "seed \(seed): \(outcome.changes)")
            #expect(
                outcome.reads * 3 < arrivals.count,
                "seed \(seed): \(outcome.reads) reads for \(arrivals.count) datagrams")
            // A datagram waits at most an interval and a read's cost (a batch of the most that
            // arrive in one interval) after the one before it was read.
            let bound = interval + simulation.perRead + simulation.perDatagram * 16 + simulation.wakeUp
            #expect(outcome.longestWait <= bound, "seed \(seed): waited \(outcome.longestWait) ns")
            // Once the senders stop: back to waking on each within two windows (the one they
            // stopped in may still average enough).
            #expect(!outcome.coalescingAtEnd)
            #expect(
                outcome.emptyReadsAtEnd <= 2 * Int(simulation.coalescing.window / interval) + 2,
                "seed \(seed): \(outcome.emptyReadsAtEnd) timed reads found nothing")
        }
    }

    @Test("One sender at 1 kHz, or 8, never coalesces: no datagram waits more than the wake-up")
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
        "Bursts of 50 every millisecond (bench stream's capacity rounds), at once or sent 3 µs apart, are read by one wake-up or a few: never coalesced"
    )
    func bursts() {
        var arrivals: [UInt64] = []
        for ms in 1...300 { arrivals += Array(repeating: UInt64(ms) * 1_000_000, count: 50) }
        var simulation = ReadSimulation()
        let outcome = simulation.run(arrivals)
        #expect(outcome.changes.isEmpty, "\(outcome.changes)")
        #expect(outcome.reads == 300)

        // A sender's burst as it leaves: one sendto after another. A read every interval would take
        // the place of about one wake-up each: nothing to gain.
        let spread = (1...300).flatMap { ms in (0..<50).map { UInt64(ms) * 1_000_000 + UInt64($0) * 3_000 } }
        var again = ReadSimulation()
        let spreadOutcome = again.run(spread)
        #expect(spreadOutcome.changes.isEmpty, "\(spreadOutcome.reads) reads: \(spreadOutcome.changes)")
    }

    @Test("A rate that falls from 64 kHz to 8 kHz goes back to waking on each within two windows")
    func rateFalls() {
        let fast = interleaved(senders: 64, hertz: 1000, seconds: 0.05, jitter: 10_000, seed: 3)
        let slow = interleaved(senders: 8, hertz: 1000, seconds: 0.1, jitter: 10_000, seed: 4).map { $0 + 50_000_000 }
        var simulation = ReadSimulation()
        let outcome = simulation.run(fast + slow)
        #expect(outcome.changes.map(\.change) == [.coalesce, .wakeOnEach], "\(outcome.changes)")
        if let back = outcome.changes.last { #expect(back.at < 53_000_000, "back at \(back.at) ns") }
    }

    @Test("Rates near the bounds (20 to 45 kHz, many seeds) do not switch back and forth")
    func noFlapping() {
        for senders in stride(from: 20, through: 45, by: 5) {
            for seed in UInt64(1)...8 {
                var simulation = ReadSimulation()
                let outcome = simulation.run(
                    interleaved(senders: senders, hertz: 1000, seconds: 0.2, jitter: 100_000, seed: seed))
                // At most one start and, when the senders stop, one end (or a start, an end and one more
                // start near the bound, within the first windows).
                let during = outcome.changes.filter { $0.at < 200_000_000 }
                #expect(during.count <= 3, "\(senders) kHz, seed \(seed): \(during.count) switches")
            }
        }
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

    @Test("A window's decision uses the time it spanned: reads at one instant decide nothing")
    func sameInstant() {
        var coalescing = WakeUpCoalescing()
        for _ in 0..<1000 { #expect(coalescing.read(64, at: 5_000_000) == nil) }
        #expect(!coalescing.isCoalescing)
        #expect(coalescing.nextRead == nil)
    }
}
