import Mouse3DCore
import Testing

@Suite("A phone's messages and clock")
struct PhoneTests {
    static func readings(_ count: Int, from start: Double = 1000) -> [PhoneReading] {
        (0..<count).map { i in
            PhoneReading(
                milliseconds: start + Double(i) * 16.7, rotationRate: SIMD3(1.5, -2, 90),
                accelerationIncludingGravity: SIMD3(0.25, -0.5, 9.75))
        }
    }

    func decode(_ bytes: [UInt8]) -> Result<PhoneMessage, PhoneMessage.Problem> {
        bytes.withUnsafeBytes { PhoneMessage.decode($0) }
    }

    @Test("Readings and buttons round-trip; every malformed message is refused whole, by reason")
    func messages() {
        let m = PhoneMessage.readings(Self.readings(3))
        #expect(m.encoded.count == 3 + 3 * PhoneMessage.readingBytes)
        #expect(decode(m.encoded) == .success(m))
        #expect(decode(PhoneMessage.buttons([.left, .holdToMove]).encoded) == .success(.buttons([.left, .holdToMove])))
        #expect(decode(PhoneMessage.platform(.webKit).encoded) == .success(.platform(.webKit)))
        #expect(decode([3, 7]) == .failure(.badLength))
        #expect(decode([]) == .failure(.empty))
        #expect(decode([9, 0]) == .failure(.unknownKind))
        #expect(decode(Array(m.encoded.dropLast())) == .failure(.badLength))
        #expect(decode(m.encoded + [0]) == .failure(.badLength))
        #expect(decode([2]) == .failure(.badLength))
        let many = PhoneMessage.readings(Self.readings(PhoneMessage.maximumReadings + 1)).encoded
        #expect(decode(many) == .failure(.tooManyReadings))
        #expect(
            decode(PhoneMessage.readings(Self.readings(PhoneMessage.maximumReadings)).encoded).map { _ in true }
                == .success(true))
        var nan = PhoneMessage.readings(Self.readings(1, from: .nan)).encoded
        #expect(decode(nan) == .failure(.notFinite))
        nan =
            PhoneMessage.readings([
                PhoneReading(milliseconds: 1, rotationRate: SIMD3(1e9, 0, 0), accelerationIncludingGravity: .zero)
            ]).encoded
        #expect(decode(nan) == .failure(.outOfRange))
        #expect(
            decode(
                PhoneMessage.readings([
                    PhoneReading(milliseconds: -5, rotationRate: .zero, accelerationIncludingGravity: .zero)
                ]).encoded)
                == .failure(.outOfRange))
        // Times that would trap a conversion or poison the clock: too late, backward, or spread too far.
        func at(_ times: [Double]) -> [UInt8] {
            PhoneMessage.readings(
                times.map { PhoneReading(milliseconds: $0, rotationRate: .zero, accelerationIncludingGravity: .zero) }
            ).encoded
        }
        #expect(decode(at([1e13])) == .failure(.outOfRange))
        #expect(decode(at([9e11, 0])) == .failure(.badTimes))
        #expect(decode(at([10, 5011])) == .failure(.badTimes))
        #expect(
            decode(at([10, 10, 5010])).map { _ in true } == .success(true), "equal times and a 5 s span are a phone's")
    }

    /// A phone at 60 Hz whose clock is `offset` from this machine's and runs `ppm` fast, batching every
    /// 3 readings, each message delayed 1–`jitter` ms (bursts of up to 200 ms now and then).
    static func run(seed: UInt64, offset: Int64, ppm: Double, jitterMilliseconds: Double, seconds: Double)
        -> (phone: [Int64], local: [Int64], truth: [Int64], clock: PhoneClock)
    {
        var random = SplitMix64(seed: seed)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var clock = PhoneClock()
        var phone: [Int64] = []
        var local: [Int64] = []
        var truth: [Int64] = []
        let count = Int(seconds * 60)
        var i = 0
        while i < count {
            let batch = (i..<min(count, i + 3)).map { k -> (ms: Double, truth: Int64) in
                let t = Int64(Double(k) * 16_666_667)  // local truth of reading k, ns
                let phoneNs = Double(t - offset) * (1 + ppm * 1e-6)
                return (phoneNs / 1e6, t)
            }
            i += 3
            let burst = uniform() < 0.02 ? 200.0 * uniform() : 0
            let arrival = batch.last!.truth + Int64((1 + (jitterMilliseconds - 1) * uniform() + burst) * 1e6)
            let mapped = clock.map(batch.map(\.ms), arrival: arrival)
            phone += batch.map { Int64(($0.ms * 1e6).rounded()) }
            local += mapped
            truth += batch.map(\.truth)
        }
        return (phone, local, truth, clock)
    }

    @Test(
        "Over 40 seeds of jitter (up to 50 ms, bursts of 200 ms) and drift (±100 ppm): intervals are the phone's within 0.2 % after the first 2 s, times only increase, local times settle within 5 ms of the truth"
    )
    func clockUnderJitter() {
        var worstRate = 0.0
        var worstLag: Int64 = 0
        for seed in 0..<40 as Range<UInt64> {
            let ppm = Double(Int(seed % 5) - 2) * 50
            let r = Self.run(
                seed: seed, offset: Int64(seed) * 1_234_567_891, ppm: ppm,
                jitterMilliseconds: 5 + Double(seed % 10) * 5, seconds: 30)
            for k in 1..<r.local.count {
                let dPhone = Double(r.phone[k] - r.phone[k - 1])
                let dLocal = Double(r.local[k] - r.local[k - 1])
                #expect(r.local[k] > r.local[k - 1])
                // The first 2 s may move faster (the first message's delay is unknown).
                if r.phone[k] - r.phone[0] > PhoneClock.startNanoseconds + 100_000_000 {
                    worstRate = max(worstRate, abs(dLocal / dPhone - 1))
                }
            }
            // After 20 s, local times sit within a few ms (the least delay, 1 ms, and the drift's
            // lag behind the slew) of the truth.
            for k in (r.local.count * 2 / 3)..<r.local.count {
                worstLag = max(worstLag, abs(r.local[k] - r.truth[k]))
            }
            #expect(r.clock.steps == 0)
        }
        print(
            "phone clock, 40 seeds × 30 s: worst interval error after 2 s \(worstRate * 100) %, worst |local − truth| after 20 s \(Double(worstLag) / 1e6) ms"
        )
        #expect(worstRate <= PhoneClock.maximumSlew + 0.0002, "intervals changed by \(worstRate)")
        #expect(worstLag < 5_000_000, "\(Double(worstLag) / 1e6) ms off the truth")
    }

    @Test(
        "A turn and back while the least delay drops mid-turn (40 -> 30 ms): the turns are integrated over the phone's own intervals and cancel, the mapping moves while still and settles; slewing through the turns would leave 0.09°"
    )
    func clockHoldsWhileTurning() {
        // A phone lying flat at 60 Hz, batches of 3 every 50 ms: 4 s still, 1 s at +90 °/s about z,
        // 2 s still, 1 s at -90 °/s, then 25 s still. Its clock reads local - 8 s.
        func gamma(_ t: Double) -> Double { (4..<5).contains(t) ? 90 : (7..<8).contains(t) ? -90 : 0 }
        var mapper = PhoneSampleMapper()
        var slewing = PhoneClock()  // what the mapping did before: it moved while the phone turned
        var held: [(time: Int64, gamma: Double)] = []
        var slewed: [(time: Int64, gamma: Double)] = []
        for batch in stride(from: 0, to: 33 * 60, by: 3) {
            let readings = (batch..<batch + 3).map { k in
                PhoneReading(
                    milliseconds: 1000 + Double(k) * 1000 / 60, rotationRate: SIMD3(0, 0, gamma(Double(k) / 60)),
                    accelerationIncludingGravity: SIMD3(0, 0, 9.80665))
            }
            let delay: Int64 = Double(batch) / 60 < 4.5 ? 40_000_000 : 30_000_000
            let arrival = 8_000_000_000 + Int64((readings.last!.milliseconds * 1e6).rounded()) + delay
            for (r, sample) in zip(readings, mapper.samples(readings, arrival: arrival)) {
                held.append((sample.timestampNanoseconds, r.rotationRate.z))
            }
            let times = slewing.map(readings.map(\.milliseconds), arrival: arrival, still: true)
            slewed += zip(times, readings).map { ($0, $1.rotationRate.z) }
        }
        /// Degrees turned: each reading's rate over the interval up to it.
        func turned(_ samples: [(time: Int64, gamma: Double)]) -> Double {
            zip(samples, samples.dropFirst()).reduce(0) { $0 + $1.1.gamma * Double($1.1.time - $1.0.time) * 1e-9 }
        }
        let heldResidual = turned(held)
        let slewedResidual = turned(slewed)
        print(
            "phone clock, turn and back across a delay drop: held \(heldResidual)°, slewed through the turns \(slewedResidual)°"
        )
        #expect(abs(heldResidual) < 1e-6, "the turns did not cancel: \(heldResidual)°")
        #expect(abs(slewedResidual) > 0.05, "the scenario does not move the mapping mid-turn: \(slewedResidual)°")
        // Still afterwards, the mapping moved to the new estimate.
        let clock = mapper.clock
        #expect(
            clock.offset != nil && abs(clock.offset! - clock.estimate!) < 1_000_000,
            "\(String(describing: clock.offset)) against \(String(describing: clock.estimate))")
    }

    @Test("A page reload (its clock starts again near 0) and a forward jump: anchored anew, times still increase")
    func clockSteps() {
        var clock = PhoneClock()
        let first = clock.map([100_000, 100_016.7, 100_033.3], arrival: 5_000_000_000)
        let reload = clock.map([20, 36.7], arrival: 5_500_000_000)
        #expect(clock.steps == 1 && reload[0] > first.last! && reload[1] - reload[0] == 16_700_000)
        #expect(abs(reload[1] - 5_500_000_000) < 2_000_000, "anchored at the arrival: \(reload)")
        let jump = clock.map([60_000, 60_016.7], arrival: 5_600_000_000)  // a minute ahead, 100 ms later
        #expect(clock.steps == 2 && jump[0] > reload.last! && jump[1] - jump[0] == 16_700_000)
        let late = clock.map([60_033.4], arrival: 9_600_000_000)  // a message 4 s late is not a jump
        #expect(clock.steps == 2 && late[0] - jump[1] == 16_700_000, "\(late[0] - jump[1])")
    }

    @Test(
        "Readings become samples in the gamepad frame (portrait, pointed with the top edge): the top edge rising is a turn about -y, lying flat is +z; WebKit's force negated; every reading a sample"
    )
    func mapping() {
        var mapper = PhoneSampleMapper()
        let flat = PhoneReading(
            milliseconds: 10, rotationRate: SIMD3(0, 0, 90), accelerationIncludingGravity: SIMD3(0, 0, 9.8))
        let s = mapper.samples([flat, flat], arrival: 1_000_000_000)
        #expect(
            s.count == 2 && abs(s[0].angularVelocityRadiansPerSecond.z - .pi / 2) < 1e-12
                && s[0].specificForceMetersPerSecondSquared.z == 9.8)
        // The phone's x is its right edge, y its top edge: forward is y, left is -x.
        let tilted = PhoneReading(
            milliseconds: 20, rotationRate: SIMD3(90, 0, 30), accelerationIncludingGravity: SIMD3(1, 2, 9.8))
        let u = mapper.samples([tilted], arrival: 1_000_000_000)[0]
        #expect(
            u.angularVelocityRadiansPerSecond == SIMD3(0, -90, 30) * (.pi / 180),
            "the top edge rising (about the phone's x) is nose up: a turn about -y")
        #expect(u.specificForceMetersPerSecondSquared == SIMD3(2, -1, 9.8))
        var ios = PhoneSampleMapper()
        ios.platform = .webKit
        let flatIOS = PhoneReading(
            milliseconds: 10, rotationRate: SIMD3(90, 0, 0), accelerationIncludingGravity: SIMD3(0, 0, -9.8))
        let t = ios.samples([flatIOS], arrival: 1_000_000_000)
        #expect(
            abs(t[0].angularVelocityRadiansPerSecond.y + .pi / 2) < 1e-12
                && t[0].specificForceMetersPerSecondSquared.z == 9.8)
    }

    @Test(
        "Landscape: readings are turned by the screen's angle, so the far side raised pitches as the top edge does in portrait (90° and 270°); other angles and lengths refused"
    )
    func screenAngle() {
        // Portrait: the top edge rising is a turn about the device's +x, gravity tipping toward -y.
        let portrait = PhoneReading(
            milliseconds: 10, rotationRate: SIMD3(30, 0, 5), accelerationIncludingGravity: SIMD3(0.5, -4.9, 8.5))
        var upright = PhoneSampleMapper()
        let expected = upright.samples([portrait], arrival: 1_000_000_000)[0]
        // Turned 90° counterclockwise, the far side is the device's right edge (+x) and the screen's
        // right its bottom (-y): raising the far side is a turn about the device's -y.
        let cases: [(Int, PhoneReading)] = [
            (
                90,
                PhoneReading(
                    milliseconds: 10, rotationRate: SIMD3(0, -30, 5),
                    accelerationIncludingGravity: SIMD3(-4.9, -0.5, 8.5))
            ),
            (
                270,
                PhoneReading(
                    milliseconds: 10, rotationRate: SIMD3(0, 30, 5), accelerationIncludingGravity: SIMD3(4.9, 0.5, 8.5))
            ),
            (
                180,
                PhoneReading(
                    milliseconds: 10, rotationRate: SIMD3(-30, 0, 5),
                    accelerationIncludingGravity: SIMD3(-0.5, 4.9, 8.5))
            )
        ]
        for (angle, reading) in cases {
            var mapper = PhoneSampleMapper()
            mapper.screenAngle = angle
            let got = mapper.samples([reading], arrival: 1_000_000_000)[0]
            let rate = got.angularVelocityRadiansPerSecond - expected.angularVelocityRadiansPerSecond
            let force = got.specificForceMetersPerSecondSquared - expected.specificForceMetersPerSecondSquared
            #expect(
                (rate * rate).sum() < 1e-20 && (force * force).sum() < 1e-20,
                "at \(angle)°: \(got) against portrait's \(expected)")
        }
        #expect(decode(PhoneMessage.screen(angle: 270).encoded) == .success(.screen(angle: 270)))
        #expect(decode([4, 45, 0]) == .failure(.outOfRange))
        #expect(decode([4, 104, 1]) == .failure(.outOfRange), "360")
        #expect(decode([4, 90]) == .failure(.badLength))
    }
}

@Suite("QR codes drawn with half blocks")
struct QRTextTests {
    @Test("Two module rows per line, light as blocks, a quiet zone of two; colours only when asked")
    func halfBlocks() {
        // 2 × 2: dark, light / light, dark.
        let code = QRModules(width: 2, dark: [true, false, false, true])
        let lines = QRText.lines(code)
        #expect(lines.count == 3, "6 rows of modules (2 + 2 quiet each side) in 3 lines: \(lines)")
        #expect(lines[0] == String(repeating: "█", count: 6), "the quiet zone above is light: \(lines[0])")
        #expect(
            lines[1] == "██▄▀██",
            "row 0 dark/light over row 1 light/dark: a light lower half, then a light upper half: '\(lines[1])'")
        #expect(lines[2] == String(repeating: "█", count: 6))
        let coloured = QRText.lines(code, colours: true)
        #expect(coloured[1].hasPrefix("\u{1B}[97;40m") && coloured[1].hasSuffix("\u{1B}[0m"))
        #expect(QRModules(width: 2, dark: [true, false, false, true]).isDark(-1, 0) == false)
    }
}
