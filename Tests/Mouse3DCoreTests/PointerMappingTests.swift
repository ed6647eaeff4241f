import Mouse3DCore
import Testing

@Suite("Gyro mouse and joystick mapping")
struct PointerMappingTests {
    /// Feeds yaw/pitch (degrees) at 100 Hz; returns the summed counts.
    func run(_ mapping: PointerMapping, yaw: [Double], pitch: [Double]? = nil, enabled: [Bool]? = nil) -> (Int32, Int32)
    {
        let moves = steps(mapping, yaw: yaw, pitch: pitch, enabled: enabled)
        return (moves.reduce(0) { $0 + $1.0 }, moves.reduce(0) { $0 + $1.1 })
    }

    /// The counts of every event.
    func steps(_ mapping: PointerMapping, yaw: [Double], pitch: [Double]? = nil, enabled: [Bool]? = nil) -> [(
        Int32, Int32
    )] {
        var m = PointerMotion(mapping: mapping)
        return yaw.indices.map { i in
            let r = m.update(
                yawRadians: yaw[i] * degree, pitchRadians: (pitch?[i] ?? 0) * degree,
                timeNanoseconds: UInt64(i) * 10_000_000, enabled: enabled?[i] ?? true)
            return (r.dx, r.dy)
        }
    }

    @Test("Turning right 10° moves right 200 counts at 20 per degree; nose down moves down")
    func directions() {
        let turn = (0...100).map { -Double($0) * 0.1 }
        #expect(run(PointerMapping(), yaw: turn) == (200, 0))
        let nod = (0...100).map { Double($0) * 0.05 }
        #expect(run(PointerMapping(), yaw: [Double](repeating: 0, count: 101), pitch: nod) == (0, 100))
    }

    @Test("Slow motion is not lost: the fractional remainder carries over")
    func remainder() {
        // 0.01° per step is 0.2 counts: nothing per event, 20 counts over 100 steps (19 whole ones
        // plus the last 0.999… still in the remainder, as binary fractions sum just under 20).
        let slow = (0...100).map { -Double($0) * 0.01 }
        let moved = run(PointerMapping(), yaw: slow)
        #expect((19...20).contains(moved.0) && moved.1 == 0)
        #expect(run(PointerMapping(), yaw: (0...1000).map { -Double($0) * 0.01 }).0 >= 199)
    }

    @Test("Inversion and swapping")
    func invertSwap() {
        var m = PointerMapping()
        m.invertX = true
        let turn = (0...10).map { -Double($0) }
        #expect(run(m, yaw: turn) == (-200, 0))
        m.invertX = false
        m.swapAxes = true
        #expect(run(m, yaw: turn) == (0, 200))
    }

    @Test("Tightening suppresses tremor but passes deliberate motion")
    func tightening() {
        var m = PointerMapping()
        m.tighteningDegreesPerSecond = 5
        let tremor = (0...100).map { -Double($0) * 0.01 }  // 1 °/s
        let deliberate = (0...100).map { -Double($0) * 0.2 }  // 20 °/s
        #expect((3...4).contains(run(m, yaw: tremor).0))  // 20 counts × (1/5)
        #expect(run(m, yaw: deliberate).0 == 400)
    }

    @Test("Acceleration raises sensitivity with speed")
    func acceleration() {
        var m = PointerMapping()
        m.accelerationLowDegreesPerSecond = 10
        m.accelerationHighDegreesPerSecond = 100
        m.accelerationFactor = 3
        let slow = (0...10).map { -Double($0) * 0.05 }  // 5 °/s: 1×
        let fast = (0...10).map { -Double($0) * 2 }  // 200 °/s: 3×
        #expect(run(m, yaw: slow).0 == 10)
        #expect(run(m, yaw: fast).0 == 1200)
    }

    @Test("Smoothing averages tiny motions only")
    func smoothing() {
        var m = PointerMapping()
        m.smoothingDegreesPerSecond = 10
        // Alternating jitter of 0.05° (5 °/s): unsmoothed the pointer shakes one count each way every
        // step; smoothed it barely moves. A fast turn passes unchanged.
        let jitter = (0...100).map { $0 % 2 == 0 ? 0.0 : -0.05 }
        let path = { (moves: [(Int32, Int32)]) in moves.reduce(0) { $0 + abs($1.0) } }
        #expect(path(steps(PointerMapping(), yaw: jitter)) == 100)
        #expect(path(steps(m, yaw: jitter)) < 20)
        let fast = (0...10).map { -Double($0) * 1 }
        #expect(run(m, yaw: fast).0 == 200)
    }

    @Test("With the clutch released nothing moves, and re-engaging does not jump")
    func clutch() {
        let turn = (0...20).map { -Double($0) }
        let enabled = (0...20).map { $0 < 5 || $0 > 15 }
        // Moves in steps 1-4 and 16-20 (each 1° since the step before): 9 × 20 counts. Without the
        // attitude being followed while released, step 16 would jump by the 11° turned meanwhile.
        #expect(run(PointerMapping(), yaw: turn, enabled: enabled).0 == 180)
    }

    @Test("Joystick values: ±180° at the ends, 0 in the middle")
    func joystick() {
        #expect(JoystickPose.value(radians: .pi) == 32767)
        #expect(JoystickPose.value(radians: -.pi) == -32767)
        #expect(JoystickPose.value(radians: 0) == 0)
        #expect(JoystickPose.value(radians: .pi / 2) == 16384)
    }
}

@Suite("Space mouse deflection")
struct SpaceMouseDeflectionTests {
    @Test("Dead zone, gain, limit and the axis order RX pitch, RY yaw, RZ roll")
    func deflection() {
        let d = SpaceMouseDeflection()
        #expect(d.rotation(rollRadians: 0, pitchRadians: 1.5 * degree, yawRadians: 0) == SIMD3(0, 0, 0))
        #expect(d.rotation(rollRadians: 0, pitchRadians: 12 * degree, yawRadians: 0) == SIMD3(100, 0, 0))
        #expect(d.rotation(rollRadians: -7 * degree, pitchRadians: 0, yawRadians: 22 * degree) == SIMD3(0, 200, -50))
        #expect(d.rotation(rollRadians: 0, pitchRadians: -80 * degree, yawRadians: 0) == SIMD3(-350, 0, 0))
    }
}

@Suite("Held-value dither")
struct HeldValueDitherTests {
    @Test("A held value alternates by one count toward zero; rest is sent once; nothing at rest")
    func dither() {
        var d = HeldValueDither(axes: 1)
        let written = [100, 100, 100, 0, 0, -5, -5, 7].map { d.next(axis: 0, value: Int32($0)) }
        #expect(written == [100, 99, 100, 0, nil, -5, -4, 7])
    }
}

@Suite("Natural sensitivity")
struct NaturalSensitivityTests {
    @Test(
        "A screen turn of 40° on a 1920-pixel screen: 48 counts per degree, and a slow 40° turn crosses the screen to the pixel",
        arguments: [0.05, 0.5, 2.0])
    func screenTurn(stepDegrees: Double) {
        var mapping = PointerMapping()
        mapping.setScreen(turnDegrees: 40, widthPixels: 1920)
        #expect(mapping.countsPerDegree == 48)
        #expect(mapping.turnDegrees(acrossPixels: 1920) == 40)
        var motion = PointerMotion(mapping: mapping)
        var x: Int32 = 0
        var t: UInt64 = 0
        let steps = Int((40 / stepDegrees).rounded())
        for i in 0...steps {
            // Turning right: yaw decreasing.
            let (dx, _) = motion.update(
                yawRadians: -Double(i) * stepDegrees * .pi / 180, pitchRadians: 0, timeNanoseconds: t, enabled: true)
            x += dx
            t += 4_000_000
        }
        #expect(abs(x - 1920) <= 1, "a 40° turn in \(stepDegrees)° steps moved \(x) counts")
    }
}

@Suite("Gyro space")
struct GyroSpaceTests {
    /// Counts moved by turning `turnDegrees` about the world's vertical, in 0.5° steps, with the grip
    /// rolled by `rollDegrees` and the nose at `pitchDegrees`.
    func moved(_ space: GyroSpace, rollDegrees: Double, pitchDegrees: Double = 0, turnDegrees: Double = 20) -> (
        x: Double, y: Double
    ) {
        var mapping = PointerMapping()
        mapping.gyroSpace = space
        var motion = PointerMotion(mapping: mapping)
        var x = 0.0
        var y = 0.0
        let steps = Int(turnDegrees / 0.5)
        for i in 0...steps {
            let (dx, dy) = motion.update(
                rollRadians: rollDegrees * .pi / 180, pitchRadians: pitchDegrees * .pi / 180,
                yawRadians: -Double(i) * 0.5 * .pi / 180,
                timeNanoseconds: UInt64(i + 1) * 4_000_000, enabled: true)
            x += Double(dx)
            y += Double(dy)
        }
        return (x, y)
    }

    @Test(
        "Level, every space agrees: a 20° right turn is 400 counts right, none vertical", arguments: GyroSpace.allCases)
    func level(space: GyroSpace) {
        let m = moved(space, rollDegrees: 0)
        #expect(abs(m.x - 400) <= 1 && abs(m.y) <= 1, "\(space): \(m)")
    }

    @Test(
        "Grip rolled 30°: player and world space keep a turn about gravity horizontal; local space sees it on the controller's axes"
    )
    func tiltedGrip() {
        for space in [GyroSpace.player, .world] {
            let m = moved(space, rollDegrees: 30)
            #expect(abs(m.x - 400) <= 1 && abs(m.y) <= 4, "\(space): \(m) (leakage \(abs(m.y) / 400 * 100) %)")
        }
        let local = moved(.local, rollDegrees: 30)
        // The vertical turn in the rolled controller's frame: cos 30° of it about its yaw axis, sin 30° about its pitch axis.
        #expect(abs(local.x - 400 * 0.8660) <= 3 && abs(abs(local.y) - 400 * 0.5) <= 3, "local: \(local)")
    }

    @Test("A nose-up turn in player space moves by the controller's own pitch; in world space by the nose's elevation")
    func pitchAxes() {
        var mapping = PointerMapping()
        for space in GyroSpace.allCases {
            mapping.gyroSpace = space
            var motion = PointerMotion(mapping: mapping)
            var y = 0.0
            for i in 0...20 {
                let (_, dy) = motion.update(
                    rollRadians: 0, pitchRadians: Double(i) * .pi / 180, yawRadians: 0,
                    timeNanoseconds: UInt64(i + 1) * 4_000_000, enabled: true)
                y += Double(dy)
            }
            #expect(abs(y - 400) <= 1, "\(space): 20° nose down moved \(y)")
        }
    }
}
