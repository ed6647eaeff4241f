import Mouse3DCore
import RealModule
import Testing

/// The regular sample clock on synthetic sensors with exact truth: a sensor sampling on its own
/// steady clock, each sample the mean rate over its interval, stamped when it arrives (in order,
/// after a delay that is never negative: exponential, with stalls after which the held samples
/// come in a burst). Angles are integrated as the fusion does (each sample's rate over the time
/// since the sample before) with the arrival stamps and with the clock's.
@Suite("Regular sample clock: arrival stamps put back on the sensor's grid")
struct RegularSampleClockTests {
    struct Run {
        /// Degrees at the end of the turn and at the end of the way back, by the truth, the arrival
        /// stamps and the clock.
        var truth: (turned: Double, back: Double)
        var arrival: (turned: Double, back: Double)
        var regular: (turned: Double, back: Double)
        var times: [Int64]
        var clock: RegularSampleClock
    }

    /// 10 s still, `rate` °/s for 1 s, 2 s still, −`rate` °/s for 1 s, 3 s still, sampled every
    /// `period` s (true period × `periodError` as the sensor's clock runs). `lost`: sample indices
    /// that never arrive.
    func run(
        seed: UInt64, period: Double = 0.01, periodError: Double = 1, rate: Double = 30, meanDelay: Double = 0.002,
        stallEvery: Int = 150, stall: Double = 0.03, lost: Set<Int> = []
    ) -> Run {
        var random = SplitMix64(seed: seed)
        let phases: [(seconds: Double, rate: Double)] = [(10, 0), (1, rate), (2, 0), (1, -rate), (3, 0)]
        let total = phases.reduce(0) { $0 + $1.seconds }
        /// The profile's integral from 0 to `t`.
        func integral(_ t: Double) -> Double {
            var angle = 0.0
            var start = 0.0
            for p in phases {
                angle += p.rate * max(0, min(t, start + p.seconds) - start)
                start += p.seconds
            }
            return angle
        }
        let samplePeriod = period * periodError
        var clock = RegularSampleClock()
        var truth = 0.0
        var byArrival = 0.0
        var byClock = 0.0
        var lastArrival: Int64 = 0
        var previousArrival: Int64?
        var previousTime: Int64?
        var times: [Int64] = []
        var turned = (0.0, 0.0, 0.0)
        let turnEnd = Int((13 / samplePeriod).rounded())
        let count = Int(total / samplePeriod)
        for k in 1...count {
            let t = Double(k) * samplePeriod
            let mean = (integral(t) - integral(t - samplePeriod)) / samplePeriod
            truth += mean * samplePeriod
            var delay = -meanDelay * Double.log(1 - Double.random(in: 0..<1, using: &random))
            if k % stallEvery == 0 { delay += stall }
            let arrival = max(lastArrival, Int64(((5 + t + delay) * 1e9).rounded()))
            lastArrival = arrival
            if !lost.contains(k) {
                let time = clock.time(arrivalNanoseconds: arrival)
                times.append(time)
                if let a = previousArrival, let c = previousTime {
                    byArrival += mean * Double(arrival - a) * 1e-9
                    byClock += mean * Double(time - c) * 1e-9
                }
                previousArrival = arrival
                previousTime = time
            }
            if k == turnEnd { turned = (truth, byArrival, byClock) }
        }
        return Run(
            truth: (turned.0, truth), arrival: (turned.1, byArrival), regular: (turned.2, byClock), times: times,
            clock: clock)
    }

    @Test("a 30° turn and its way back, 100 Hz, 2 ms of jitter and 30 ms stalls: within 0.05° over 40 seeds")
    func turnAndBack() throws {
        var worstArrival = 0.0
        var worstClock = 0.0
        for seed in UInt64(1)...40 {
            let r = run(seed: seed)
            #expect(abs(r.truth.turned - 30) < 1e-9 && abs(r.truth.back) < 1e-9)
            worstClock = max(worstClock, abs(r.regular.turned - r.truth.turned), abs(r.regular.back - r.truth.back))
            worstArrival = max(
                worstArrival, abs(r.arrival.turned - r.truth.turned), abs(r.arrival.back - r.truth.back))
        }
        print(
            "30° turn and back, worst error over 40 seeds: \(worstArrival)° by arrival stamps, \(worstClock)° by the clock"
        )
        #expect(worstClock < 0.05, "the clock's worst: \(worstClock)°")
        #expect(worstClock < worstArrival / 2, "no better than arrival stamps: \(worstClock)° against \(worstArrival)°")
    }

    @Test("harder: 10 ms of mean jitter, 100 ms stalls, a hand's 300 °/s: the clock stays within 0.5° of the truth")
    func harder() throws {
        var worstArrival = 0.0
        var worstClock = 0.0
        for seed in UInt64(1)...40 {
            let r = run(seed: seed, rate: 300, meanDelay: 0.01, stallEvery: 97, stall: 0.1)
            worstClock = max(worstClock, abs(r.regular.turned - r.truth.turned), abs(r.regular.back - r.truth.back))
            worstArrival = max(
                worstArrival, abs(r.arrival.turned - r.truth.turned), abs(r.arrival.back - r.truth.back))
        }
        print("300° turn and back, 10 ms jitter: worst \(worstArrival)° by arrival, \(worstClock)° by the clock")
        #expect(worstClock < 0.5 && worstClock < worstArrival)
    }

    @Test("a 0.8 s stall just before the way back (a descheduled machine), then the burst: within 0.05° over 20 seeds")
    func stallThenBurst() throws {
        var worst = 0.0
        for seed in UInt64(1)...20 {
            // One stall (every 1290th sample: only the one at 12.9 s), its burst over the way back.
            let r = run(seed: seed, stallEvery: 1290 + Int(seed % 5) * 7, stall: 0.8)
            worst = max(worst, abs(r.regular.turned - r.truth.turned), abs(r.regular.back - r.truth.back))
        }
        #expect(worst < 0.05, "worst \(worst)°")
    }

    @Test("a sensor whose clock runs 0.4% slow and 2% fast is followed (the period from arrivals)")
    func periodOff() throws {
        for error in [0.996, 1.02] {
            let r = run(seed: 7, periodError: error)
            let period = try #require(r.clock.periodSeconds)
            #expect(abs(period / (0.01 * error) - 1) < 0.002, "period \(period) for \(0.01 * error)")
            #expect(abs(r.regular.turned - r.truth.turned) < 0.05 && abs(r.regular.back - r.truth.back) < 0.05)
        }
    }

    @Test("lost samples: the grid catches up with the arrivals within one envelope stretch; times never go back")
    func lostSamples() throws {
        // Three samples lost at 12 s (during the stillness after the turn), one more at 15 s.
        let r = run(seed: 3, lost: [1200, 1201, 1202, 1500])
        // Arrival stamps until the period is known (never back); a quarter period apart after.
        for (a, b) in zip(r.times, r.times.dropFirst()) { #expect(b >= a) }
        let regular = r.times.suffix(r.clock.regularised + 1)
        #expect(regular.count > 1000)
        for (a, b) in zip(regular, regular.dropFirst()) { #expect(b - a >= 2_500_000, "a step of \(b - a) ns") }
        #expect(r.clock.movedForward >= 2)
        #expect(abs(r.regular.back - r.truth.back) < 0.05)
        // The last sample's time within two periods of its arrival's true time (5 s + 17 s).
        let last = Double(try #require(r.times.last)) * 1e-9
        #expect(abs(last - 22) < 0.02, "the last sample at \(last) s, 22 s true")
    }

    @Test("before the period is known, arrival stamps pass through unchanged")
    func warmUp() {
        var clock = RegularSampleClock(window: 64, minimumSamples: 32)
        for k in 0..<60 {
            let arrival = Int64(k) * 10_000_000 + Int64(k % 3) * 1_000_000
            #expect(clock.time(arrivalNanoseconds: arrival) == arrival)
        }
        #expect(clock.regularised == 0 && clock.periodSeconds == nil)
    }
}
