import Testing

@testable import Mouse3DCore

@Suite("Refusals, outputs and fusion stage")
struct PipelineCoreTests {
    @Test("Every refusal has its own label; counts are by typed reason and summarised by label")
    func refusalLabels() {
        let labels = Refusal.allCases.map(\.description)
        #expect(Set(labels).count == labels.count)
        #expect(Refusal.staleEpoch.description == "stale session" && Refusal.badTag.description == "bad tag")
        var counts = RefusalCounts()
        #expect(counts.isEmpty && counts.summary == "")
        counts.add(.replayed)
        counts.add(.badTag, 3)
        #expect(counts[.badTag] == 3 && counts[.replayed] == 1 && counts[.unsealed] == 0 && counts.total == 4)
        #expect(counts.summary == "bad tag 3, replayed 1")
    }

    final class Recorder: AttitudeSink {
        let name: String
        var log: [String]
        var deadline: UInt64?
        init(_ name: String, deadline: UInt64? = nil) {
            self.name = name
            self.deadline = deadline
            log = []
        }
        func write(_ update: AttitudeUpdate) throws { log.append("\(name) write \(update.sequence)") }
        var nextDeadline: UInt64? { deadline }
        func tick(now: UInt64) throws {
            log.append("\(name) tick")
            deadline = nil
        }
        func finish() { log.append("\(name) finish") }
    }

    @Test("A pipeline feeds its outputs in order, ticks only those due, and finishes once")
    func pipelineFanOut() throws {
        let a = Recorder("a", deadline: 50)
        let b = Recorder("b", deadline: 20)
        let pipeline = AttitudePipeline(outputs: [a, b])
        try pipeline.write(
            AttitudeUpdate(
                stream: .local, sequence: 1, buttons: [], frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0),
                receivedNanoseconds: 0))
        #expect(pipeline.nextDeadline == 20)
        try pipeline.tick(now: 30)
        #expect(a.log == ["a write 1"] && b.log == ["b write 1", "b tick"])
        #expect(pipeline.nextDeadline == 50)
        pipeline.finish()
        pipeline.finish()
        #expect(a.log.last == "a finish" && a.log.filter { $0 == "a finish" }.count == 1)
    }

    @Test("Buttons act on the fusion: clutch gates motion, recenter zeroes and is held, clicks are carried")
    func buttonsOnFusion() {
        let map = GamepadButtonMap(clutch: 310, recenter: 304, primary: 311, secondary: 313)
        #expect(map.codes == [310, 304, 311, 313])
        var fusion = MotionFusion(parameters: AttitudeEstimatorParameters(), clutchMode: .hold)
        let turning = MotionSample(
            timestampNanoseconds: 0, angularVelocityRadiansPerSecond: SIMD3(0, 0, 1),
            specificForceMetersPerSecondSquared: SIMD3(0, 0, 9.81))
        var sample = turning
        func step() -> AttitudeUpdate {
            sample.timestampNanoseconds += 10_000_000
            return fusion.fuse(sample, nowNanoseconds: 0)
        }
        #expect(!step().buttons.contains(.clutch), "held clutch: motion off until pressed")
        _ = map.apply(code: 310, pressed: true, to: &fusion)
        _ = map.apply(code: 311, pressed: true, to: &fusion)
        for _ in 0..<100 { _ = step() }
        let moving = step()
        #expect(moving.buttons == [.clutch, .primary])
        #expect(abs(moving.frame.yaw) > 0.5)
        #expect(map.apply(code: 304, pressed: true, to: &fusion) == .recentred)
        let zeroed = step()
        #expect(abs(zeroed.frame.yaw) < 0.05 && zeroed.buttons.contains(.recenter))
        #expect(map.apply(code: 304, pressed: false, to: &fusion) == .none)
        _ = map.apply(code: 310, pressed: false, to: &fusion)
        #expect(step().buttons == [.primary])
        // A release with no sample to carry it: an update of its own, at the attitude as it stands.
        let last = step()
        _ = map.apply(code: 311, pressed: false, to: &fusion)
        let released = fusion.update(nowNanoseconds: 7)
        #expect(released?.buttons == [] && released?.frame == last.frame && released?.motionNanoseconds == nil)
        #expect(released?.sequence == last.sequence + 1 && released?.receivedNanoseconds == 7)
        var fresh = MotionFusion(parameters: AttitudeEstimatorParameters())
        #expect(fresh.update(nowNanoseconds: 1) == nil, "nothing to say before the first sample")
    }

    @Test("A gap the filter cannot bridge is said once; the time a source was away (and back) is not a gap")
    func longGapsAndRestarts() {
        var fusion = MotionFusion(parameters: AttitudeEstimatorParameters())
        var sample = MotionSample(
            timestampNanoseconds: 1_000_000_000, angularVelocityRadiansPerSecond: .zero,
            specificForceMetersPerSecondSquared: SIMD3(0, 0, 9.81))
        for _ in 0..<10 {
            sample.timestampNanoseconds += 4_000_000
            _ = fusion.fuse(sample, nowNanoseconds: 0)
        }
        #expect(fusion.takeLongGap() == nil, "4 ms apart")
        sample.timestampNanoseconds += 2_000_000_000
        _ = fusion.fuse(sample, nowNanoseconds: 0)
        #expect(fusion.takeLongGap() == 2_000_000_000)
        #expect(fusion.takeLongGap() == nil, "said once")
        // Unplugged and back: a new device's clock (earlier or later) and seconds away.
        fusion.sourceRestarted()
        sample.timestampNanoseconds += 5_000_000_000
        _ = fusion.fuse(sample, nowNanoseconds: 0)
        #expect(fusion.takeLongGap() == nil, "the time away is not a gap")
        sample.timestampNanoseconds += 4_000_000
        _ = fusion.fuse(sample, nowNanoseconds: 0)
        sample.timestampNanoseconds += 1_000_000_000
        _ = fusion.fuse(sample, nowNanoseconds: 0)
        #expect(fusion.takeLongGap() == 1_000_000_000, "gaps after the restart are said again")
    }
}
