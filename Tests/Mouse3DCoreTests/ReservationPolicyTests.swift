import Mouse3DCore
import Testing

@Suite("Reservation policy (replay floors that survive a crash)")
struct ReservationPolicyTests {
    typealias Reservation = ReservationPolicy.Reservation
    let span = ReservationPolicy.span

    @Test("Before the tag: an older epoch is stale; below the floor, or seen, is replayed")
    func precheck() {
        var p = ReservationPolicy(epoch: 5, floor: 100)
        #expect(p.precheck(epoch: 4, sequence: 1000) == .staleEpoch)
        #expect(p.precheck(epoch: 5, sequence: 99) == .replayed)
        #expect(p.precheck(epoch: 5, sequence: 100) == nil)
        #expect(p.precheck(epoch: 6, sequence: 0) == nil, "a newer epoch has no floor")
        let answer1 = p.decide(epoch: 5, sequence: 100, inBackground: false)
        #expect(
            answer1
                == .storeFirst(Reservation(epoch: 5, nextSequence: 100 + span)))
        let answer2 = p.stored(Reservation(epoch: 5, nextSequence: 100 + span), sequence: 100)
        #expect(
            answer2
                == .accept(started: false, storeAhead: nil))
        #expect(p.precheck(epoch: 5, sequence: 100) == .replayed, "seen")
        #expect(p.highWaterMark == Reservation(epoch: 5, nextSequence: 101))
    }

    @Test(
        "The last sequence number (2^64 - 1) is refused before the tag in any epoch; the one before it is accepted and its high-water mark is the last"
    )
    func lastSequence() {
        var p = ReservationPolicy(epoch: 5, floor: 0)
        #expect(p.precheck(epoch: 5, sequence: .max) == .replayed)
        #expect(p.precheck(epoch: 6, sequence: .max) == .replayed, "a newer epoch too")
        let top = UInt64.max - 1
        #expect(p.precheck(epoch: 5, sequence: top) == nil)
        #expect(
            p.decide(epoch: 5, sequence: top, inBackground: false)
                == .storeFirst(Reservation(epoch: 5, nextSequence: .max)))
        #expect(
            p.stored(Reservation(epoch: 5, nextSequence: .max), sequence: top)
                == .accept(started: false, storeAhead: nil))
        #expect(p.highWaterMark == Reservation(epoch: 5, nextSequence: .max))
        #expect(p.precheck(epoch: 5, sequence: top) == .replayed)
    }

    @Test("Without a store in the background: a new epoch is stored first, and says it started once")
    func epochOnTheSpot() {
        var p = ReservationPolicy(epoch: 0, floor: 0)
        let r = Reservation(epoch: 3, nextSequence: 7 + span)
        let answer3 = p.decide(epoch: 3, sequence: 7, inBackground: false)
        #expect(answer3 == .storeFirst(r))
        #expect(p.epoch == 0, "nothing adopted before the store")
        let answer4 = p.stored(r, sequence: 7)
        #expect(answer4 == .accept(started: true, storeAhead: nil))
        #expect(p.epoch == 3 && p.reserved == 7 + span)
        let answer5 = p.decide(epoch: 3, sequence: 8, inBackground: false)
        #expect(answer5 == .accept(started: false, storeAhead: nil))
        for s in 9..<(7 + span) {
            let answer6 = p.decide(epoch: 3, sequence: s, inBackground: false)
            #expect(answer6 == .accept(started: false, storeAhead: nil))
        }
        let answer7 = p.decide(epoch: 3, sequence: 7 + span, inBackground: false)
        #expect(
            answer7
                == .storeFirst(Reservation(epoch: 3, nextSequence: 7 + 2 * span)), "the reservation's end")
    }

    @Test("In the background: a new epoch's datagrams are held, its store asked for once, adopted when stored")
    func epochInBackground() {
        var p = ReservationPolicy(epoch: 1, floor: 50)
        let old = Reservation(epoch: 1, nextSequence: 50 + span)
        let reserving = p.decide(epoch: 1, sequence: 50, inBackground: true)
        #expect(reserving == .storeFirst(old), "the stored epoch after a restart: its floor is its reservation")
        let reserved = p.stored(old, sequence: 50)
        #expect(reserved == .accept(started: false, storeAhead: nil))
        let r = Reservation(epoch: 2, nextSequence: span)
        let answer8 = p.decide(epoch: 2, sequence: 0, inBackground: true)
        #expect(answer8 == .hold(store: r))
        let answer9 = p.decide(epoch: 2, sequence: 1, inBackground: true)
        #expect(answer9 == .hold(store: nil), "asked once")
        let answer10 = p.decide(epoch: 1, sequence: 60, inBackground: true)
        #expect(
            answer10 == .accept(started: false, storeAhead: nil),
            "the old epoch goes on within its reservation... ")
        let answer11 = p.decide(epoch: 1, sequence: 50 + 10 * span, inBackground: true)
        #expect(
            answer11 == .refuse(.staleEpoch),
            "... but stores nothing after the pending one")
        let answer12 = p.backgroundStored(r, stored: true)
        #expect(answer12, "release the held datagrams")
        #expect(p.epoch == 2 && p.reserved == span && p.floor == 0)
        let answer13 = p.decide(epoch: 2, sequence: 0, inBackground: true)
        #expect(answer13 == .accept(started: true, storeAhead: nil))
        let answer14 = p.decide(epoch: 2, sequence: 1, inBackground: true)
        #expect(answer14 == .accept(started: false, storeAhead: nil))
        #expect(p.precheck(epoch: 1, sequence: 61) == .staleEpoch)
    }

    @Test("Renewed half-way, once while it is stored; a late one is stored first, never asking for less")
    func renewals() {
        var p = ReservationPolicy(epoch: 0, floor: 0)
        let first = Reservation(epoch: 1, nextSequence: span)
        let answer15 = p.decide(epoch: 1, sequence: 0, inBackground: true)
        #expect(answer15 == .hold(store: first))
        let answer16 = p.backgroundStored(first, stored: true)
        #expect(answer16)
        var asked: [Reservation] = []
        for s in 0..<span {
            guard case .accept(_, let ahead) = p.decide(epoch: 1, sequence: s, inBackground: true) else {
                Issue.record("refused \(s)")
                return
            }
            if let ahead { asked.append(ahead) }
        }
        #expect(asked == [Reservation(epoch: 1, nextSequence: span / 2 + span)], "half-way, once")
        // Not stored in time: the end of the reservation is stored first, for what was asked at least.
        let answer17 = p.decide(epoch: 1, sequence: span, inBackground: true)
        #expect(
            answer17
                == .storeFirst(Reservation(epoch: 1, nextSequence: 2 * span)))
        let answer18 = p.stored(Reservation(epoch: 1, nextSequence: 2 * span), sequence: span)
        #expect(
            answer18
                == .accept(started: false, storeAhead: nil))
        // The late renewal lands: it is for less and pulls nothing back.
        let answer19 = p.backgroundStored(asked[0], stored: true)
        #expect(!answer19)
        #expect(p.reserved == 2 * span)
        // A late datagram, below what was asked: the next store is not for less than that.
        var q = ReservationPolicy(epoch: 1, floor: 0)
        _ = q.decide(epoch: 1, sequence: 0, inBackground: true)  // stored first (same epoch)
        _ = q.stored(Reservation(epoch: 1, nextSequence: span), sequence: 0)
        guard case .accept(_, let ahead?) = q.decide(epoch: 1, sequence: span - 1, inBackground: true) else {
            Issue.record("no renewal")
            return
        }
        #expect(ahead.nextSequence == 2 * span - 1)
        let answer20 = q.decide(epoch: 1, sequence: span, inBackground: true)
        #expect(
            answer20
                == .storeFirst(Reservation(epoch: 1, nextSequence: 2 * span)))
    }

    @Test(
        "A failed store in the background: held datagrams are offered again and the epoch is stored first, until one is"
    )
    func backgroundFailure() {
        var p = ReservationPolicy(epoch: 0, floor: 0)
        let r = Reservation(epoch: 4, nextSequence: span)
        let answer21 = p.decide(epoch: 4, sequence: 0, inBackground: true)
        #expect(answer21 == .hold(store: r))
        let answer22 = p.backgroundStored(r, stored: false)
        #expect(answer22)
        #expect(p.epoch == 0 && p.storesEpochsOnTheSpot)
        let answer23 = p.decide(epoch: 4, sequence: 0, inBackground: true)
        #expect(answer23 == .storeFirst(r))
        let answer24 = p.stored(r, sequence: 0)
        #expect(answer24 == .accept(started: true, storeAhead: nil))
        #expect(!p.storesEpochsOnTheSpot, "stored again: the next epoch goes in the background")
        let next = p.decide(epoch: 5, sequence: 0, inBackground: true)
        #expect(next == .hold(store: Reservation(epoch: 5, nextSequence: span)))
    }

    @Test("An epoch stored while a newer one was asked for is not adopted, but nothing older is stored after it")
    func supersededEpoch() {
        var p = ReservationPolicy(epoch: 3, floor: 0)
        let r5 = Reservation(epoch: 5, nextSequence: span)
        let r6 = Reservation(epoch: 6, nextSequence: span)
        let hold5 = p.decide(epoch: 5, sequence: 0, inBackground: true)
        let hold6 = p.decide(epoch: 6, sequence: 0, inBackground: true)
        #expect(hold5 == .hold(store: r5) && hold6 == .hold(store: r6), "the sender restarted twice")
        let adopted5 = p.backgroundStored(r5, stored: true)
        #expect(!adopted5 && p.epoch == 3 && p.storedEpoch == 5, "stored, superseded: not adopted")
        let given6 = p.backgroundStored(r6, stored: false)
        #expect(given6 && p.storesEpochsOnTheSpot)
        let older = p.decide(epoch: 4, sequence: 0, inBackground: true)
        #expect(older == .refuse(.staleEpoch), "epoch 4 stored after 5 would move the stored state back")
        let again5 = p.decide(epoch: 5, sequence: 1, inBackground: true)
        #expect(again5 == .storeFirst(Reservation(epoch: 5, nextSequence: 1 + span)))
    }

    @Test("Sequences near the top saturate instead of wrapping")
    func saturation() {
        var p = ReservationPolicy(epoch: 0, floor: 0)
        let top = UInt64.max - 3
        let answer25 = p.decide(epoch: 1, sequence: top, inBackground: false)
        #expect(
            answer25
                == .storeFirst(Reservation(epoch: 1, nextSequence: .max)))
        let answer26 = p.stored(Reservation(epoch: 1, nextSequence: .max), sequence: top)
        #expect(
            answer26
                == .accept(started: true, storeAhead: nil))
        let answer27 = p.decide(epoch: 1, sequence: top + 1, inBackground: true)
        #expect(answer27 == .accept(started: false, storeAhead: nil))
    }

    /// Feeds one epoch's sequences `range` to `p`, one every `period` ns from `start`, in the
    /// background, each store landing at once; returns the renewals asked for (the sequence that
    /// asked, how far it reached), and how many frames were accepted beyond what was stored.
    func renewals(
        _ p: inout ReservationPolicy, epoch: UInt32, _ range: Range<UInt64>, period: UInt64, start: UInt64 = 0
    )
        -> (asked: [(sequence: UInt64, reach: UInt64)], unstored: Int)
    {
        var asked: [(sequence: UInt64, reach: UInt64)] = []
        var unstored = 0
        var stored = p.reserved
        for s in range {
            let now = start + (s - range.lowerBound) * period
            var d = p.decide(epoch: epoch, sequence: s, inBackground: true, now: now)
            if case .storeFirst(let r) = d {
                stored = r.nextSequence
                d = p.stored(r, sequence: s)
            }
            if case .hold(let r?) = d {
                stored = r.nextSequence
                _ = p.backgroundStored(r, stored: true)
                d = p.decide(epoch: epoch, sequence: s, inBackground: true, now: now)
            }
            guard case .accept(_, let ahead) = d else {
                Issue.record("sequence \(s): \(d)")
                break
            }
            if s >= stored { unstored += 1 }
            if let ahead {
                asked.append((s, ahead.nextSequence - s))
                stored = ahead.nextSequence
                _ = p.backgroundStored(ahead, stored: true)
            }
        }
        return (asked, unstored)
    }

    @Test("Renewals of a stream of 1000 frames/s or slower, or with a clock that stands still, reach one span")
    func renewalsAtOneSpan() {
        for period: UInt64 in [0, 1_000_000, 16_666_667] {
            var p = ReservationPolicy(epoch: 0, floor: 0)
            let (asked, unstored) = renewals(&p, epoch: 1, 0..<100_000, period: period)
            #expect(unstored == 0)
            #expect(asked.count >= 100_000 / Int(span) - 1, "period \(period): \(asked.count) renewals")
            #expect(asked.allSatisfy { $0.reach == span }, "period \(period): \(asked.map(\.reach))")
        }
    }

    @Test(
        "A faster stream's renewals reach as far as it goes in 4 s, at most 8 spans: at 50,000 frames/s a store every 0.33 s, not 25 a second"
    )
    func renewalsReachFurtherForFasterStreams() {
        // 4,000 frames/s: 16,000 ahead, a store every 2 s.
        var p = ReservationPolicy(epoch: 0, floor: 0)
        let slow = renewals(&p, epoch: 1, 0..<200_000, period: 250_000)
        #expect(slow.unstored == 0)
        #expect(slow.asked.first?.sequence == span / 2, "half-way through the epoch's first reservation")
        #expect(slow.asked.allSatisfy { $0.reach == 16_000 }, "\(slow.asked.map(\.reach))")
        let gaps = zip(slow.asked, slow.asked.dropFirst()).map { $1.sequence - $0.sequence }
        #expect(gaps.allSatisfy { $0 == 8_000 }, "every 8,000 frames (2 s): \(gaps)")

        // 50,000 frames/s for 20 s: the most, a store every 16,384 frames.
        var q = ReservationPolicy(epoch: 0, floor: 0)
        let fast = renewals(&q, epoch: 1, 0..<1_000_000, period: 20_000)
        #expect(fast.unstored == 0)
        #expect(fast.asked.dropFirst().allSatisfy { $0.reach == ReservationPolicy.maximumSpan })
        #expect(
            fast.asked.count <= 1_000_000 / Int(ReservationPolicy.maximumSpan / 2) + 2,
            "\(fast.asked.count) stores (a fixed span: \(1_000_000 / Int(span / 2)))")

        // A sequence that leaps (a burst the network lost) reaches no further than the most.
        var r = ReservationPolicy(epoch: 0, floor: 0)
        _ = renewals(&r, epoch: 1, 0..<10_000, period: 1_000_000)
        let leap = renewals(&r, epoch: 1, 1 << 40..<(1 << 40) + 100_000, period: 1_000_000, start: 10_000_000_000)
        #expect(leap.unstored == 0)
        #expect(leap.asked.allSatisfy { $0.reach <= ReservationPolicy.maximumSpan }, "\(leap.asked.map(\.reach))")
        #expect(leap.asked.last?.reach == span, "back to its rate")
    }

    @Test("A stream that slows down comes back to one span: how far it is refused after a crash follows its rate")
    func renewalsFollowASlowingStream() {
        var p = ReservationPolicy(epoch: 0, floor: 0)
        let fast = renewals(&p, epoch: 1, 0..<200_000, period: 20_000)
        #expect(fast.asked.last?.reach == ReservationPolicy.maximumSpan)
        let slow = renewals(&p, epoch: 1, 200_000..<300_000, period: 1_000_000, start: 4_000_000_000)
        #expect(slow.unstored == 0)
        #expect(slow.asked.suffix(3).allSatisfy { $0.reach == span }, "\(slow.asked.map(\.reach))")
        // What a crash now would refuse of a sender that carries on: at most one span ahead (4 s here).
        #expect(p.reserved - 299_999 <= span)
    }

    /// A receiver driven by the policy over a random sender (restarts, reordering, duplicates),
    /// with a writer that stores in order and late, stores that fail, and a crash at random: after
    /// any crash, a policy restored from what was durably stored refuses everything accepted before.
    @Test("Killed at any moment: nothing accepted before is accepted after a restart (200 seeds)", arguments: 0..<200)
    func crashSafety(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var policy = ReservationPolicy(epoch: 0, floor: 0)
        var durable = Reservation(epoch: 0, nextSequence: 0)
        var queue: [Reservation] = []  // the writer's, in order
        var written: [(Reservation, Bool)] = []  // its completions, not yet taken by the loop
        var accepted: [(epoch: UInt32, sequence: UInt64)] = []
        var everAccepted: Set<UInt64> = []  // epoch << 40 | sequence, over every run
        var acceptedTwice = 0
        var held: [(epoch: UInt32, sequence: UInt64)] = []
        var storedInOrder = true
        let background = random.next() % 2 == 0
        let failureRate = random.next() % 4 == 0 ? 20 : 0  // percent of stores that fail, in some runs
        var epoch: UInt32 = 1
        var next: UInt64 = 0
        var sent: [UInt64] = []
        var sentBefore: [UInt64] = []  // the previous epoch's
        // The receiver's clock: a step is 1 µs to 1 ms (renewals reach from one span to the most),
        // or, in some runs, the clock stands still (every reservation one span).
        var clock: UInt64 = 0
        let stepNanoseconds: UInt64 = [0, 1000, 20_000, 250_000, 1_000_000][Int(random.next() % 5)]

        func write(_ r: Reservation) -> Bool {
            if failureRate > 0 && Int(random.next() % 100) < failureRate { return false }
            storedInOrder = storedInOrder && (r.epoch, r.nextSequence) >= (durable.epoch, durable.nextSequence)
            durable = r
            return true
        }
        func writeOne() {
            let r = queue.removeFirst()
            written.append((r, write(r)))
        }
        func offer(_ e: UInt32, _ s: UInt64) {
            guard policy.precheck(epoch: e, sequence: s) == nil else { return }
            var decision = policy.decide(epoch: e, sequence: s, inBackground: background, now: clock)
            if case .storeFirst(let r) = decision {
                while !queue.isEmpty { writeOne() }  // the writer idle first (its completions come later)
                guard write(r) else { return }
                decision = policy.stored(r, sequence: s)
            }
            switch decision {
            case .accept(_, let ahead):
                accepted.append((e, s))
                if !everAccepted.insert(UInt64(e) << 40 | s).inserted { acceptedTwice += 1 }
                if let ahead { queue.append(ahead) }
            case .hold(let store):
                held.append((e, s))
                if let store { queue.append(store) }
            case .refuse, .storeFirst: break
            }
        }

        for _ in 0..<20_000 {
            clock += stepNanoseconds
            switch random.next() % 1000 {
            case 0..<2:  // the sender restarts: a new epoch from 0
                epoch += 1
                next = 0
                sentBefore = sent
                sent = []
            case 2..<40 where !sent.isEmpty:  // an old datagram again (reordered, duplicated, replayed)
                offer(epoch, sent[Int(random.next() % UInt64(sent.count))])
            case 45..<60 where !sentBefore.isEmpty:  // the sender's last run replayed after its restart
                offer(epoch - 1, sentBefore[Int(random.next() % UInt64(sentBefore.count))])
            case 40..<45:  // a burst of datagrams the network dropped
                next += random.next() % (2 * span)
            default:
                offer(epoch, next)
                sent.append(next)
                if sent.count > 3000 { sent.removeFirst(1000) }
                next += 1
            }
            // The writer writes at its own pace, and the loop takes its completions at its own.
            if random.next() % 50 == 0, !queue.isEmpty { writeOne() }
            if random.next() % 30 == 0, !written.isEmpty {
                var release = false
                for (r, stored) in written { release = policy.backgroundStored(r, stored: stored) || release }
                written = []
                if release {
                    let again = held
                    held = []
                    for h in again { offer(h.epoch, h.sequence) }
                }
            }
            if random.next() % 5000 == 0 {
                // Killed: only what was stored survives.
                let restored = ReservationPolicy(epoch: durable.epoch, floor: durable.nextSequence)
                for a in accepted {
                    guard restored.precheck(epoch: a.epoch, sequence: a.sequence) != nil else {
                        Issue.record("seed \(seed): \(a) accepted before the crash, accepted again after it")
                        return
                    }
                }
                policy = restored
                queue = []
                written = []
                held = []
                accepted = []
            }
        }
        #expect(acceptedTwice == 0, "seed \(seed): \(acceptedTwice) datagrams accepted twice")
        #expect(storedInOrder, "seed \(seed): a stored state moved back")
        #expect(
            everAccepted.count > 5000,
            "seed \(seed): the stream went through (\(everAccepted.count) accepted; \(accepted.count) since the last restart; policy \(policy), queue \(queue.count), held \(held.count), durable \(durable), epoch \(epoch) next \(next))"
        )
    }
}

/// A small seeded generator (SplitMix64), so a failing seed can be run again.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
