import Mouse3DCore
import Testing

@Suite("evdev motion decoding")
struct EvdevMotionDecoderTests {
    typealias C = EvdevMotionDecoder.Code
    let axes =
        [EvdevMotionDecoder.Axis](repeating: .init(center: 0, resolution: 8192), count: 3)
        + [EvdevMotionDecoder.Axis](repeating: .init(center: 0, resolution: 1024), count: 3)

    func frame(_ d: inout EvdevMotionDecoder, abs: [(Int32, Int32)], stamp: UInt32?, time: Int64) -> MotionSample? {
        for (code, value) in abs { _ = d.feed(type: C.evAbs, code: code, value: value, eventTimeNanoseconds: time) }
        if let stamp {
            _ = d.feed(type: C.evMsc, code: C.mscTimestamp, value: Int32(bitPattern: stamp), eventTimeNanoseconds: time)
        }
        return d.feed(type: C.evSyn, code: C.synReport, value: 0, eventTimeNanoseconds: time)
    }

    @Test("Resolutions give m/s² and rad/s; unchanged axes keep their values")
    func units() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 8192, 0, 0, 0])
        let s = try #require(frame(&d, abs: [(0, 4096), (3, 1024 * 90)], stamp: 1000, time: 5_000_000_000))
        #expect(abs(s.specificForceMetersPerSecondSquared.x - 4.903325) < 1e-9)
        #expect(abs(s.specificForceMetersPerSecondSquared.z - 9.80665) < 1e-9)
        #expect(abs(s.angularVelocityRadiansPerSecond.x - Double.pi / 2) < 1e-12)
        #expect(s.angularVelocityRadiansPerSecond.y == 0)
    }

    @Test("The axis centre is subtracted")
    func center() throws {
        var a = axes
        a[0] = .init(center: 100, resolution: 10)
        var d = EvdevMotionDecoder(axes: a, initialValues: [0, 0, 0, 0, 0, 0])
        let s = try #require(frame(&d, abs: [(0, 110)], stamp: nil, time: 0))
        #expect(abs(s.specificForceMetersPerSecondSquared.x - 9.80665) < 1e-9)
    }

    @Test("MSC_TIMESTAMP spacing is kept across a 32-bit wrap; event time anchors it")
    func timestampWrap() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        let start = UInt32.max - 3000
        var times: [Int64] = []
        for i in 0..<4 {
            let stamp = start &+ UInt32(i * 2000)
            let eventTime = 7_000_000_000 + Int64(i) * 2_100_000  // event times jitter; device times do not
            times.append(
                try #require(frame(&d, abs: [(3, Int32(i))], stamp: stamp, time: eventTime)).timestampNanoseconds)
        }
        #expect(times == [7_000_000_000, 7_002_000_000, 7_004_000_000, 7_006_000_000])
    }

    @Test(
        "Stamps 6.7% short (hid-nintendo's 15 ms rounded to 14), three samples per 15 ms report: corrected once the window knows, so 60 s of reports span 60 s"
    )
    func shortStampsCorrected() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        var random = SplitMix64(seed: 5)
        var first: Int64?
        var stamps: [Int64] = []
        for report in 0..<4000 {  // 60 s
            let arrival = Int64(report) * 15_000_000 + Int64.random(in: 0...3_000_000, using: &random)
            for k in 0..<3 {
                let stamp = UInt32(truncatingIfNeeded: (report * 3 + k) * 4667)  // 5 ms samples stamped 4.667 ms
                let s = try #require(frame(&d, abs: [(3, Int32(report % 7))], stamp: stamp, time: arrival))
                if first == nil { first = s.timestampNanoseconds }
                stamps.append(s.timestampNanoseconds)
            }
        }
        #expect(abs(d.timestampRatio / 0.9334 - 1) < 0.002, "ratio \(d.timestampRatio)")
        // The last 10 s of samples, after the correction took hold: 5 ms apart on average.
        let tail = stamps.suffix(2000)
        let spacing = Double(tail.last! - tail.first!) / Double(tail.count - 1)
        #expect(abs(spacing / 5_000_000 - 1) < 0.002, "spacing \(spacing) ns")
        // An honest driver keeps its own stamps exactly.
        var honest = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        for i in 0..<3000 {
            let s = try #require(
                frame(
                    &honest, abs: [(3, Int32(i % 5))], stamp: UInt32(i * 4000), time: Int64(i) * 4_000_000 + 1_000_000))
            #expect(s.timestampNanoseconds == 1_000_000 + Int64(i) * 4_000_000)
        }
        #expect(honest.timestampRatio == 1)
    }

    @Test("A report of a steady sensor (timestamp only: the kernel drops unchanged axes) is a sample")
    func steady() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 8192, 1024, 0, 0])
        _ = frame(&d, abs: [(0, 1)], stamp: 100, time: 1_000)
        let s = try #require(frame(&d, abs: [], stamp: 4100, time: 5_000))
        #expect(s.timestampNanoseconds == 1_000 + 4_000_000)
        #expect(abs(s.angularVelocityRadiansPerSecond.x - Double.pi / 180) < 1e-12)
    }

    @Test("Without MSC_TIMESTAMP the event time is used; a frame with neither yields nothing")
    func fallback() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        #expect(frame(&d, abs: [], stamp: nil, time: 10) == nil)
        #expect(try #require(frame(&d, abs: [(1, 3)], stamp: nil, time: 123)).timestampNanoseconds == 123)
        #expect(d.framesWithoutTimestamp == 1)
    }

    @Test(
        "hid-nintendo at 15 ms, its average 15 or 14 from one 300-report update to the next: every 4.5 s stretch after the first 10 s spans 4.5 s within 0.2%, over 10 seeds"
    )
    func flippingAverage() throws {
        for seed in UInt64(1)...10 {
            var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
            var random = SplitMix64(seed: seed)
            var stamp: UInt32 = 1000
            var average = 15
            var starts: [Int64] = []
            for report in 0..<4800 {  // 72 s, 16 updates of the driver's average
                if report % 300 == 0 {
                    starts.append(0)
                    average = Bool.random(using: &random) ? 15 : 14
                }
                let arrival = Int64(report) * 15_000_000 + Int64.random(in: 0...4_000_000, using: &random)
                for k in 0..<3 {
                    let s = try #require(frame(&d, abs: [(3, Int32(report % 7))], stamp: stamp, time: arrival))
                    if report % 300 == 0 && k == 0 { starts[starts.count - 1] = s.timestampNanoseconds }
                    stamp &+= UInt32(average * 1000 / 3)
                }
            }
            for (n, pair) in zip(starts, starts.dropFirst()).enumerated().dropFirst(3) {
                let span = Double(pair.1 - pair.0) * 1e-9
                #expect(abs(span / 4.5 - 1) < 0.002, "seed \(seed), stretch \(n): \(span) s")
            }
        }
    }

    @Test(
        "A host that stalled 1.5 s (the reports queued, then came at once) keeps the device's clock: the samples stay 4 ms apart, and no correction follows"
    )
    func hostStall() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        var stamps: [Int64] = []
        for i in 0..<6000 {
            // 250 Hz; samples 3000..<3375 (1.5 s) delivered together with the 3375th.
            let arrival = (3000..<3375).contains(i) ? 3375 : i
            let s = try #require(
                frame(
                    &d, abs: [(3, Int32(i % 7))], stamp: UInt32(i * 4000), time: Int64(arrival) * 4_000_000 + 7_000_000)
            )
            stamps.append(s.timestampNanoseconds)
            #expect(d.timestampRatio == 1, "sample \(i): corrected by \(d.timestampRatio)")
        }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 == 4_000_000 })
    }

    @Test("A device clock that jumps back re-anchors to the event time")
    func clockReset() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        _ = frame(&d, abs: [(0, 1)], stamp: 50_000_000, time: 1_000_000_000)
        let s = try #require(frame(&d, abs: [(0, 2)], stamp: 10, time: 1_004_000_000))
        #expect(s.timestampNanoseconds == 1_004_000_000)
    }
}
