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
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: .computed)
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
            var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: .computed)
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
        "hid-nintendo at 15 ms, its average 15 or 14 from one update to the next, the arrivals 0.15% slow (a busy host): every 4.5 s stretch from the first update that averaged 15 spans 4.5 s within 2 us (a 14 set to the 15 that agreed, not to the arrivals), over 10 seeds; the driver's default 15 before its first update is no measurement (a 14.96 ms pad averages 14 for ever: the arrivals decide); a pad whose driver stops agreeing takes the arrivals"
    )
    func flippingAverageExact() throws {
        for seed in UInt64(1)...10 {
            for interval in [15.0, 14.96] {
                var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: .computed)
                var random = SplitMix64(seed: seed)
                var stamp: UInt32 = 1000
                var average = 15  // the driver's default until its first update
                var starts: [Int64] = []
                var averages: [Int] = []
                var arrival: Int64 = 0
                for report in 0..<6000 {  // 90 s, 20 updates of the driver's average
                    if report % 300 == 0 {
                        starts.append(0)
                        if report > 0 { average = interval == 15 && Bool.random(using: &random) ? 15 : 14 }
                        averages.append(average)
                    }
                    // The last 15 s: the pad reports every 16.5 ms, which the driver rounds to 16.
                    let period = report < 5000 ? Int64(interval * 1e6) : 16_500_000
                    if report >= 5000 && report % 300 == 200 { average = 16 }
                    arrival += period + period * 15 / 10_000
                    let jittered = arrival + Int64.random(in: 0...4_000_000, using: &random)
                    for k in 0..<3 {
                        let s = try #require(frame(&d, abs: [(3, Int32(report % 7))], stamp: stamp, time: jittered))
                        if report % 300 == 0 && k == 0 { starts[starts.count - 1] = s.timestampNanoseconds }
                        stamp &+= UInt32(average * 1000 / 3)
                    }
                }
                let truth = Int64(300 * interval * 1e6)
                if interval == 15 {
                    let first = try #require(averages.dropFirst().firstIndex(of: 15), "seed \(seed): never 15")
                    for n in first..<16 {
                        let span = starts[n + 1] - starts[n]
                        #expect(abs(span - truth) <= 2_000, "seed \(seed), stretch \(n): \(span) ns")
                    }
                } else {
                    // Every stretch after the first update by the arrivals: within their 0.3%, not 0.26% long.
                    for n in 2..<16 {
                        let span = Double(starts[n + 1] - starts[n])
                        #expect(
                            abs(span / (Double(truth) * 1.0015) - 1) < 0.002,
                            "seed \(seed), 14.96 ms, stretch \(n): \(span) ns")
                    }
                }
                // 16 (5.333 ms) is 3% short of 5.5 ms, and 15 (9%) no longer agrees: the arrivals decide
                // (within their estimate's 0.3% here, far from either).
                let last = Double(starts[19] - starts[18]) * 1e-9
                #expect(
                    abs(last / (300 * 0.0165 * 1.0015) - 1) < 0.005, "seed \(seed): the last stretch spans \(last) s")
            }
        }
    }

    /// Feeds a 250 Hz controller whose clock counts (4000 µs steps, or `jitter` µs either way),
    /// losing each report with probability `loss`; returns the decoder and the samples' times
    /// against the true times of those samples.
    func countedClock(seed: UInt64, loss: Double, jitter: Int) throws -> (EvdevMotionDecoder, [(Int64, Int64)]) {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        var random = SplitMix64(seed: seed)
        var stamp: UInt32 = 500
        var times: [(Int64, Int64)] = []
        for i in 0..<15000 {  // 60 s
            stamp &+= UInt32(4000 + Int.random(in: -jitter...jitter, using: &random))
            guard i < 100 || Double.random(in: 0..<1, using: &random) >= loss else { continue }
            let truth = Int64(i) * 4_000_000
            let arrival = truth + 1_000_000 + Int64.random(in: 0...2_000_000, using: &random)
            let s = try #require(frame(&d, abs: [(3, Int32(i % 7))], stamp: stamp, time: arrival))
            times.append((s.timestampNanoseconds, truth))
        }
        return (d, times)
    }

    @Test(
        "A counting clock with 1% to 5% of its reports lost keeps its time (alike steps or jittered): the last 40 s span 40 s within 0.1%, over 5 seeds; its steps are not taken as computed"
    )
    func lostReports() throws {
        for seed in UInt64(1)...5 {
            for loss in [0.01, 0.03, 0.05] {
                for jitter in [0, 3] {
                    let (d, times) = try countedClock(seed: seed, loss: loss, jitter: jitter)
                    let tail = times.filter { $0.1 >= 20_000_000_000 }
                    let span = Double(tail.last!.0 - tail.first!.0) / Double(tail.last!.1 - tail.first!.1)
                    #expect(
                        abs(span - 1) < 0.001,
                        "seed \(seed), loss \(loss), jitter \(jitter): spans \(span) of the truth (ratio \(d.timestampRatio), computed \(d.computedSteps))"
                    )
                    #expect(!d.computedSteps, "seed \(seed), loss \(loss): its steps taken as computed")
                }
            }
        }
    }

    @Test(
        "hid-nintendo through a 1.5 s dropout (its stamps go on, its next average counts the gap): the times join the arrivals again within 1.2 s, and every 4.5 s stretch away from the dropout spans 4.5 s within 0.5%"
    )
    func nintendoDropout() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: .computed)
        var random = SplitMix64(seed: 9)
        // The driver: whole milliseconds of a 250 Hz jiffy clock, averaged over 300 reports.
        var stamp: UInt32 = 1000
        var average: Int64 = 15
        var (sum, count, lastMilliseconds): (Int64, Int64, Int64?) = (0, 0, nil)
        var firstOffset: Int64?
        var offsets: [(truth: Int64, offset: Int64)] = []
        var reportStarts: [(truth: Int64, time: Int64)] = []
        for report in 0..<6000 {  // 90 s
            let truth = Int64(report) * 15_000_000
            if (3000..<3100).contains(report) { continue }  // 1.5 s lost
            let arrival = truth + Int64.random(in: 0...3_000_000, using: &random)
            let milliseconds = arrival / 4_000_000 * 4
            if let last = lastMilliseconds {
                sum += milliseconds - last
                count += 1
                if count >= 300 {
                    average = sum / count
                    (sum, count) = (0, 0)
                }
            }
            lastMilliseconds = milliseconds
            for k in 0..<3 {
                let s = try #require(frame(&d, abs: [(3, Int32(report % 7))], stamp: stamp, time: arrival))
                stamp &+= UInt32(average * 1000 / 3)
                if k == 0 {
                    if firstOffset == nil { firstOffset = s.timestampNanoseconds - truth }
                    offsets.append((truth, s.timestampNanoseconds - truth - firstOffset!))
                    reportStarts.append((truth, s.timestampNanoseconds))
                }
            }
        }
        let dropout = Int64(3000) * 15_000_000
        let back = Int64(3100) * 15_000_000  // the first report after it
        for o in offsets where o.truth > back + 1_200_000_000 {
            #expect(
                abs(o.offset) < 50_000_000,
                "at \(Double(o.truth) * 1e-9) s the times are \(Double(o.offset) * 1e-6) ms off the arrivals")
            break
        }
        let late = offsets.filter { $0.truth > dropout + 3_000_000_000 }.map { abs($0.offset) }.max() ?? 0
        #expect(late < 50_000_000, "after the dropout the times stay \(Double(late) * 1e-6) ms off")
        var stretch = Int64(15_000_000_000)
        while stretch + 4_500_000_000 < 89_000_000_000 {
            defer { stretch += 4_500_000_000 }
            if stretch < dropout + 2_000_000_000 && stretch + 4_500_000_000 > dropout - 100_000_000 { continue }
            let a = try #require(reportStarts.first { $0.truth >= stretch })
            let b = try #require(reportStarts.first { $0.truth >= stretch + 4_500_000_000 })
            let span = Double(b.time - a.time) / Double(b.truth - a.truth)
            #expect(abs(span - 1) < 0.005, "the stretch from \(Double(stretch) * 1e-9) s spans \(span) of the truth")
        }
    }

    @Test(
        "A DualShock 4 out of reach 1.2 s (its 16-bit clock wraps every 349.5 ms, so its stamp moves less than the gap): the times join the arrivals again a second later",
        arguments: [StampClock.counted, .unknown]
    )
    func wrappedDropout(stamps clock: StampClock) throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: clock)
        // hid-sony: 16-bit ticks of 16/3 µs, the driver adding each delta modulo 2¹⁶.
        var driverMicroseconds: Int64 = 0
        var lastTicks: Int64 = 0
        var offsets: [(Int64, Int64)] = []
        for i in 0..<3000 {
            if (1000..<1300).contains(i) { continue }  // 1.2 s out of reach
            let truth = Int64(i) * 4_000_000
            let ticks = (truth / 1000 * 3 / 16) % 65536
            driverMicroseconds += ((ticks - lastTicks + 65536) % 65536) * 16 / 3
            lastTicks = ticks
            let s = try #require(
                frame(
                    &d, abs: [(3, Int32(i % 7))], stamp: UInt32(truncatingIfNeeded: driverMicroseconds),
                    time: truth + 2_000_000))
            offsets.append((truth, s.timestampNanoseconds - truth))
        }
        let before = offsets.first { $0.0 >= 3_000_000_000 }!.1
        let after = offsets.first { $0.0 >= 6_700_000_000 }!.1
        #expect(
            abs(after - before) < 20_000_000,
            "a second after the dropout the times are \(Double(after - before) * 1e-6) ms off")
    }

    @Test(
        "A host that stalled 1.5 s (the reports queued, then came at once) keeps the device's clock: the samples stay 4 ms apart, and no correction follows",
        arguments: [StampClock.counted, .unknown]
    )
    func hostStall(stamps clock: StampClock) throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: clock)
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

    @Test(
        "A driver that counts the controller's clock keeps it when a busy host delivers its reports 2.4% slow for 12 s and then catches up; an unknown driver's would be corrected (the window's ratio, 0.976)"
    )
    func countedClockUnderLoad() throws {
        var counted = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: .counted)
        var unknown = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        var random = SplitMix64(seed: 7)
        var last: Int64?
        var unknownRatios: [Double] = []
        for i in 0..<4000 {
            let truth = Int64(i) * 4_000_000
            // Late by 2.4% of the time since 2 s, up to 12 s in (288 ms behind); then on time.
            let late = truth < 2_000_000_000 || truth >= 14_000_000_000 ? 0 : (truth - 2_000_000_000) * 24 / 1000
            let arrival = truth + late + Int64.random(in: 0...500_000, using: &random) + 3_000_000
            let stamp = UInt32(truncatingIfNeeded: truth / 1000)
            let s = try #require(frame(&counted, abs: [(3, Int32(i % 7))], stamp: stamp, time: arrival))
            _ = try #require(frame(&unknown, abs: [(3, Int32(i % 7))], stamp: stamp, time: arrival))
            unknownRatios.append(unknown.timestampRatio)
            if let last { #expect(s.timestampNanoseconds - last == 4_000_000, "sample \(i)") }
            last = s.timestampNanoseconds
            #expect(counted.timestampRatio == 1, "sample \(i): corrected by \(counted.timestampRatio)")
        }
        // The scene is one the window's ratio takes for a clock that runs off.
        let lowest = unknownRatios.min() ?? 1
        #expect(lowest < 0.99, "the unknown driver's lowest ratio \(lowest)")
    }

    @Test(
        "hid-nintendo's right 5 ms steps stay 5 ms while a busy host delivers the reports 1% slow for 12 s and then catches up: the driver's error is a millisecond of its interval (6.7%), not the arrivals' 1%"
    )
    func computedStepsUnderLoad() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0], stamps: .computed)
        var random = SplitMix64(seed: 11)
        var last: Int64?
        for report in 0..<1600 {  // 24 s of 15 ms reports, three samples each
            let truth = Int64(report) * 15_000_000
            let late = truth < 2_000_000_000 || truth >= 14_000_000_000 ? 0 : (truth - 2_000_000_000) / 100
            let arrival = truth + late + Int64.random(in: 0...3_000_000, using: &random)
            for k in 0..<3 {
                let stamp = UInt32(truncatingIfNeeded: (report * 3 + k) * 5000)
                let s = try #require(frame(&d, abs: [(3, Int32(report % 7))], stamp: stamp, time: arrival))
                if let last { #expect(s.timestampNanoseconds - last == 5_000_000, "report \(report)") }
                last = s.timestampNanoseconds
            }
        }
        #expect(d.timestampRatio == 1, "corrected by \(d.timestampRatio)")
    }

    @Test("The driver table says where stamps come from, as each driver's source does")
    func stampClocks() {
        #expect(GamepadMotionAxes.forDriver("playstation")?.stamps == .counted)
        #expect(GamepadMotionAxes.forDriver("sony")?.stamps == .counted)
        #expect(GamepadMotionAxes.forDriver("nintendo")?.stamps == .computed)
        #expect(GamepadMotionAxes.forDevice(driver: nil, id: "054c:0ce6")?.stamps == .counted)
        #expect(GamepadMotionAxes.forDriver("bmi160")?.stamps == nil)
    }

    /// A steady 90°/s turn about z from a 250 Hz device with its own clock, read by a starved
    /// reader: reports `lost` never reach it (evdev's buffer overflowed; libevdev discards what was
    /// queued and reads the state back), and every report from the gap on arrives `late` ns late.
    /// Returns the samples and the yaw the fusion made of them (degrees).
    func turnWithDrop(lost: Range<Int>, late: Int64, stamps clock: StampClock) throws -> ([MotionSample], Double) {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 8192, 0, 0, 0], stamps: clock)
        var samples: [MotionSample] = []
        let rate: Int32 = 90 * 1024  // ABS_RZ at 1024 units per °/s
        for i in 0..<1000 {
            let time = Int64(i) * 4_000_000 + 5_000_000 + (i >= lost.lowerBound ? late : 0)
            if lost.contains(i) { continue }
            if i == lost.upperBound && !lost.isEmpty {
                d.resynchronising()  // SYN_DROPPED, then the resync: the state now, one frame
                for (code, value) in [(Int32(5), rate), (2, 8192)] {
                    _ = d.feed(
                        type: C.evAbs, code: code, value: value, eventTimeNanoseconds: time, resynchronised: true)
                }
                #expect(
                    d.feed(type: C.evSyn, code: C.synReport, value: 0, eventTimeNanoseconds: time, resynchronised: true)
                        == nil, "the resync's frame is no sample")
            }
            let turning = i >= 100 && i < 900  // 3.2 s at 90°/s: 288°
            if let s = frame(
                &d, abs: [(5, turning ? rate : 0), (2, 8192)], stamp: UInt32(truncatingIfNeeded: i * 4000), time: time)
            {
                samples.append(s)
            }
        }
        var fusion = AttitudeEstimator(parameters: AttitudeEstimatorParameters())
        var yaw = 0.0
        var last: Double?
        for s in samples {
            fusion.update(s)
            let y = fusion.attitude.yawRadians * 180 / .pi
            if let l = last { yaw += (y - l + 540).truncatingRemainder(dividingBy: 360) - 180 }
            last = y
        }
        return (samples, yaw)
    }

    @Test(
        "Events dropped by the kernel mid-turn (a starved reader): the next report's stamp times the gap, and the turn loses nothing",
        arguments: [StampClock.counted, .unknown, .computed]
    )
    func droppedEventsBridged(stamps clock: StampClock) throws {
        let (whole, full) = try turnWithDrop(lost: 0..<0, late: 0, stamps: clock)
        #expect(abs(full - 288) < 0.5, "the whole turn: \(full)°")
        for (lost, late) in [(400..<416, Int64(0)), (400..<416, 300_000_000), (500..<560, 150_000_000)] {
            let (samples, yaw) = try turnWithDrop(lost: lost, late: late, stamps: clock)
            #expect(samples.count == whole.count - lost.count, "one sample a report that arrived")
            let after = try #require(
                samples.first { $0.timestampNanoseconds > whole[lost.lowerBound - 1].timestampNanoseconds })
            #expect(
                after.timestampNanoseconds == whole[lost.upperBound].timestampNanoseconds,
                "the report after \(lost.count) lost, \(late / 1_000_000) ms late, is stamped on the device's clock")
            #expect(
                abs(yaw - full) < 0.05,
                "\(lost.count) reports lost \(late / 1_000_000) ms late: \(yaw)° against \(full)°")
        }
    }

    @Test("A device clock that jumps back re-anchors to the event time")
    func clockReset() throws {
        var d = EvdevMotionDecoder(axes: axes, initialValues: [0, 0, 0, 0, 0, 0])
        _ = frame(&d, abs: [(0, 1)], stamp: 50_000_000, time: 1_000_000_000)
        let s = try #require(frame(&d, abs: [(0, 2)], stamp: 10, time: 1_004_000_000))
        #expect(s.timestampNanoseconds == 1_004_000_000)
    }
}
