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
    func dueTimes() {
        var p = MotionLogPlayer(samples: samples, loops: false, speed: 2)
        var dues: [UInt64] = []
        while let due = p.nextDueNanoseconds() {
            dues.append(due)
            p.advance()
        }
        #expect(dues == [0, 5_000_000, 10_000_000])
    }

    @Test("Looping continues time instead of jumping back")
    func looping() {
        var p = MotionLogPlayer(samples: samples, loops: true, speed: nil)
        var times: [Int64] = []
        for _ in 0..<7 {
            times.append(p.peek()!.timestampNanoseconds)
            #expect(p.nextDueNanoseconds() == 0)
            p.advance()
        }
        #expect(times == [1_000, 10_001_000, 20_001_000, 30_001_000, 40_001_000, 50_001_000, 60_001_000])
    }
}
