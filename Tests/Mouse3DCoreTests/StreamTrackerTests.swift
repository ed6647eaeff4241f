import Mouse3DCore
import Testing

@Suite("Stream tracking")
struct StreamTrackerTests {
    @Test("Latest wins: older and duplicate sequence numbers are stale; gaps count as lost")
    func ordering() {
        var t = StreamTracker<String>()
        #expect(t.receive("a", sequence: 5, now: 0) == .accept(isNew: true, resumed: false))
        #expect(t.receive("a", sequence: 6, now: 1) == .accept(isNew: false, resumed: false))
        #expect(t.receive("a", sequence: 9, now: 2) == .accept(isNew: false, resumed: false))
        #expect(t.receive("a", sequence: 8, now: 3) == .stale)
        #expect(t.receive("a", sequence: 9, now: 4) == .stale)
        let s = t.streams["a"]!
        #expect(s.accepted == 3 && s.lost == 2 && s.reordered == 2 && s.newestSequence == 9)
    }

    @Test("Streams are kept apart")
    func apart() {
        var t = StreamTracker<String>()
        _ = t.receive("a", sequence: 10, now: 0)
        #expect(t.receive("b", sequence: 0, now: 0) == .accept(isNew: true, resumed: false))
        #expect(t.receive("b", sequence: 1, now: 0) == .accept(isNew: false, resumed: false))
        #expect(t.streams["a"]!.lost == 0)
    }

    @Test("The place found last stays right as streams are started, removed and forgotten")
    func places() {
        var t = StreamTracker<String>()
        _ = t.receive("a", sequence: 0, now: 0)
        let place = t.place(of: "a")!
        // Datagrams of a known stream and silence marks move nothing: the same place, asked again.
        _ = t.receive(at: place, sequence: 1, now: 1)
        _ = t.checkSilence(now: 2_000_000_000)
        #expect(t.place(of: "a") == place)
        #expect(t.newestSequence(at: t.place(of: "a")!) == 1)
        // Enough new streams to make the table grow: the place asked for then is the new one.
        for i in 0..<100 { _ = t.receive("s\(i)", sequence: UInt64(i), now: 3) }
        #expect(t.newestSequence(at: t.place(of: "a")!) == 1)
        #expect(t.newestSequence(at: t.place(of: "s42")!) == 42)
        t.remove("s42")
        #expect(t.place(of: "s42") == nil)
        #expect(t.newestSequence(at: t.place(of: "s41")!) == 41)
        // "a" was marked silent at 2 s: forgotten, it has no place; the others keep theirs.
        _ = t.place(of: "a")
        t.forget(silentLongerThan: 0, now: 3_000_000_000)
        #expect(t.place(of: "a") == nil)
        #expect(t.newestSequence(at: t.place(of: "s7")!) == 7)
    }

    @Test("Silence past 500 ms is reported once, and the stream's return is reported")
    func silence() {
        var t = StreamTracker<String>()
        _ = t.receive("a", sequence: 0, now: 1_000_000_000)
        #expect(t.nextSilenceDeadline() == 1_500_000_000)
        #expect(t.checkSilence(now: 1_500_000_000).isEmpty)
        #expect(t.checkSilence(now: 1_500_000_001) == ["a"])
        #expect(t.checkSilence(now: 2_000_000_000).isEmpty)
        #expect(t.nextSilenceDeadline() == nil)
        #expect(t.receive("a", sequence: 1, now: 2_100_000_000) == .accept(isNew: false, resumed: true))
        #expect(t.receive("a", sequence: 2, now: 2_100_000_001) == .accept(isNew: false, resumed: false))
    }
}

@Suite("Log player")
struct MotionLogPlayerTests {
    let samples = (0..<3).map {
        MotionSample(
            timestampNanoseconds: 1_000 + Int64($0) * 10_000_000, angularVelocityRadiansPerSecond: .zero,
            specificForceMetersPerSecondSquared: SIMD3(0, 0, 9.8))
    }

    @Test("Due times follow the log at the given speed")
    func dueTimes() throws {
        var p = MotionLogPlayer(samples: samples, loops: false, speed: 2)
        var dues: [UInt64] = []
        while let due = try p.nextDueNanoseconds() {
            dues.append(due)
            p.advance()
        }
        #expect(dues == [0, 5_000_000, 10_000_000])
    }

    @Test("Looping continues time instead of jumping back")
    func looping() throws {
        var p = MotionLogPlayer(samples: samples, loops: true, speed: nil)
        var times: [Int64] = []
        for _ in 0..<7 {
            times.append(try #require(try p.peek()).timestampNanoseconds)
            #expect(try p.nextDueNanoseconds() == 0)
            p.advance()
        }
        #expect(times == [1_000, 10_001_000, 20_001_000, 30_001_000, 40_001_000, 50_001_000, 60_001_000])
    }

    /// A log handed over a few samples at a time, as a file is read; `changed` shifts every
    /// timestamp of the passes after the first (the file was rewritten).
    struct Trickle: MotionSampleBatches {
        let samples: [MotionSample]
        let size: Int
        var changed = false
        var at = 0
        var passes = 0
        mutating func next() -> [MotionSample] {
            let batch = samples[min(at, samples.count)..<min(at + size, samples.count)].map {
                var s = $0
                if changed && passes > 0 { s.timestampNanoseconds -= 1 }
                return s
            }
            at += size
            return batch
        }
        mutating func restart() {
            at = 0
            passes += 1
        }
    }

    @Test("Played from batches of any size, a log gives what it gives from memory; changed between passes, it stops")
    func batches() throws {
        let many = (0..<10).map {
            MotionSample(
                timestampNanoseconds: 5 + Int64($0) * 4_000_000,
                angularVelocityRadiansPerSecond: SIMD3(Double($0), 0, 0),
                specificForceMetersPerSecondSquared: SIMD3(0, 0, 9.8))
        }
        func played(_ p: inout MotionLogPlayer, _ count: Int) throws -> [MotionSample] {
            var out: [MotionSample] = []
            while out.count < count, let s = try p.peek() {
                out.append(s)
                p.advance()
            }
            return out
        }
        var memory = MotionLogPlayer(samples: many, loops: true, speed: 1)
        let expected = try played(&memory, 35)
        for size in [1, 3, 10, 64] {
            var p = MotionLogPlayer(
                span: MotionLogSpan(of: many), batches: Trickle(samples: many, size: size), loops: true, speed: 1)
            #expect(try played(&p, 35) == expected, "batches of \(size)")
        }
        var once = MotionLogPlayer(
            span: MotionLogSpan(of: many), batches: Trickle(samples: many, size: 3), loops: false, speed: 1)
        #expect(try played(&once, 100).count == 10)
        var changed = MotionLogPlayer(
            span: MotionLogSpan(of: many), batches: Trickle(samples: many, size: 4, changed: true), loops: true,
            speed: 1)
        #expect(throws: MotionLogChanged.self) { try played(&changed, 35) }
    }
}
