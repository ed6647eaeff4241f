import Mouse3DCore
import Testing

@Suite("Gyro to gamepad stick")
struct GyroStickTests {
    func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }

    /// Random game settings, wider than any game's: dead zones up to 0.35 and 0.2, curves from
    /// square root to cubic, full speeds from 60 to 1080 °/s.
    func randomMapping(_ random: inout SplitMix64) -> GyroStickMapping {
        var m = GyroStickMapping()
        m.innerDeadZone = Double.random(in: 0...0.35, using: &random)
        m.outerDeadZone = Double.random(in: 0...0.2, using: &random)
        m.power = Double.random(in: 0.5...3, using: &random)
        m.fullSpeedDegreesPerSecond = Double.random(in: 60...1080, using: &random)
        #expect(m.problems.isEmpty)
        return m
    }

    @Test(
        "The deflection makes the game, as configured, turn at the speed asked for: 2000 random games and speeds below full, within 1e-9 of it"
    )
    func inverse() {
        var random = SplitMix64(seed: 49)
        for _ in 0..<2000 {
            let m = randomMapping(&random)
            let speed = Double.random(in: 0.01...0.99, using: &random) * m.fullSpeedDegreesPerSecond
            let angle = Double.random(in: 0..<(2 * .pi), using: &random)
            let gyro = SIMD2(speed * Double.cos(angle), speed * Double.sin(angle))
            let d = m.deflection(gyro: gyro, real: .zero)
            let back = m.cameraVelocity(deflection: d)
            #expect(length(back - gyro) <= 1e-9 * m.fullSpeedDegreesPerSecond, "\(m): \(gyro) came back \(back)")
            // Any turn at all clears the game's inner dead zone.
            #expect(length(d) >= m.innerDeadZone - 1e-12)
        }
    }

    @Test("The real stick's part is added: the game turns at the real stick's speed plus the gyroscope's")
    func realStickAdded() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let m = randomMapping(&random)
            let real = SIMD2(
                Double.random(in: -0.6...0.6, using: &random), Double.random(in: -0.6...0.6, using: &random))
            let gyro =
                SIMD2(Double.random(in: -0.2...0.2, using: &random), Double.random(in: -0.2...0.2, using: &random))
                * m.fullSpeedDegreesPerSecond
            let asked = m.cameraVelocity(deflection: real) + gyro
            guard length(asked) < m.fullSpeedDegreesPerSecond * 0.999 else { continue }
            let back = m.cameraVelocity(deflection: m.deflection(gyro: gyro, real: real))
            #expect(length(back - asked) <= 1e-9 * m.fullSpeedDegreesPerSecond, "\(m): \(asked) came back \(back)")
        }
    }

    @Test(
        "Documented figures: 30 °/s at the defaults deflects 30/360 of the reach; an inner dead zone of 0.2 shifts it to 0.2 + 0.8 × 30/360; a square curve to its root; beyond full speed, the outer edge in the same direction"
    )
    func figures() {
        var m = GyroStickMapping()
        #expect(abs(m.deflection(gyro: SIMD2(30, 0), real: .zero).x - 30.0 / 360) < 1e-12)
        m.innerDeadZone = 0.2
        #expect(abs(m.deflection(gyro: SIMD2(30, 0), real: .zero).x - (0.2 + 0.8 * 30 / 360)) < 1e-12)
        m.power = 2
        #expect(abs(m.deflection(gyro: SIMD2(0, -30), real: .zero).y + (0.2 + 0.8 * (30.0 / 360).squareRoot())) < 1e-12)
        m.outerDeadZone = 0.1
        let full = m.deflection(gyro: SIMD2(3000, 4000), real: .zero)
        #expect(abs(length(full) - 0.9) < 1e-12 && abs(full.x / full.y - 0.75) < 1e-12)
    }

    @Test("Without the gyroscope's part the real stick passes untouched, inside the dead zone too")
    func passThrough() {
        var m = GyroStickMapping()
        m.innerDeadZone = 0.25
        for real in [SIMD2(0.0, 0.0), SIMD2(0.1, -0.05), SIMD2(-0.7, 0.7), SIMD2(1.0, -1.0)] {
            #expect(m.deflection(gyro: .zero, real: real) == real)
        }
    }

    @Test("Settings out of range are named")
    func problems() {
        var m = GyroStickMapping()
        m.innerDeadZone = 0.7
        m.outerDeadZone = 0.3
        m.power = 0
        m.fullSpeedDegreesPerSecond = .infinity
        #expect(m.problems.count == 3, "\(m.problems)")
    }

    /// Feeds attitudes at 250 Hz turning about the vertical at `degreesPerSecond` (yaw) plus noise
    /// of `noise` °/s either way on each step; returns the velocities.
    func turning(
        _ stick: inout GyroStick, degreesPerSecond: Double, noise: Double = 0, seconds: Double, seed: UInt64 = 1,
        from start: Int = 0, enabled: Bool = true
    ) -> [SIMD2<Double>] {
        var random = SplitMix64(seed: seed)
        return (start..<(start + Int(seconds * 250))).map { i in
            let yaw = Double(i) * 0.004 * degreesPerSecond + Double.random(in: -noise...noise, using: &random) * 0.004
            return stick.update(
                rollRadians: 0.3, pitchRadians: 0.1, yawRadians: yaw * .pi / 180,
                motionTimeNanoseconds: UInt64(i) * 4_000_000, enabled: enabled)
        }
    }

    @Test(
        "A steady 30 °/s turn to the left asks for 30 °/s to the left in player and world space, with a rolled grip; at rest with noise under the rest speed it asks for nothing"
    )
    func steadyTurn() {
        for space in [GyroSpace.player, .world] {
            var m = GyroStickMapping()
            m.gyroSpace = space
            var stick = GyroStick(mapping: m)
            let v = turning(&stick, degreesPerSecond: 30, seconds: 2)
            for x in v.dropFirst() { #expect(abs(x.x + 30) < 1e-6 && abs(x.y) < 1e-6, "\(space): \(x)") }
            var still = GyroStick(mapping: m)
            #expect(turning(&still, degreesPerSecond: 0, noise: 0.45, seconds: 10).allSatisfy { $0 == .zero })
        }
        var m = GyroStickMapping()
        m.sensitivity = 2
        m.invertX = true
        var stick = GyroStick(mapping: m)
        #expect(abs(turning(&stick, degreesPerSecond: 30, seconds: 1).last!.x - 60) < 1e-6)
    }

    @Test(
        "The clutch: while off nothing is asked for; on again mid-turn, the turn is measured from the attitude before, not from when it was last on"
    )
    func clutch() {
        var stick = GyroStick(mapping: GyroStickMapping())
        _ = turning(&stick, degreesPerSecond: 30, seconds: 0.2)
        let off = turning(&stick, degreesPerSecond: 30, seconds: 0.2, from: 50, enabled: false)
        #expect(off.allSatisfy { $0 == .zero })
        let on = turning(&stick, degreesPerSecond: 30, seconds: 0.2, from: 100)
        for v in on { #expect(abs(v.x + 30) < 1e-6, "\(v)") }
    }

    @Test(
        "An update without new motion (a button's) keeps the velocity; a jump faster than any gyroscope (a recentre) is no motion; a batch of samples arriving together is measured on their own clock"
    )
    func motionClock() {
        var stick = GyroStick(mapping: GyroStickMapping())
        let v = turning(&stick, degreesPerSecond: 30, seconds: 0.2).last!
        let yaw = 49 * 0.004 * 30 * Double.pi / 180  // the last attitude fed
        let button = stick.update(
            rollRadians: 0.3, pitchRadians: 0.1, yawRadians: yaw, motionTimeNanoseconds: nil, enabled: true)
        #expect(button == v, "a button's update changed the velocity to \(button)")
        let jump = stick.update(
            rollRadians: 0.3, pitchRadians: 0.1, yawRadians: yaw + 0.5, motionTimeNanoseconds: 200_000_000,
            enabled: true)
        #expect(jump == v, "a 0.5 rad jump in 4 ms read as \(jump)")
        let next = turning(&stick, degreesPerSecond: 30, seconds: 0.02, from: 51).last!
        // Back from the jump (another jump: no motion), then the turn goes on: 30 °/s to the left.
        #expect(abs(next.x + 30) < 1e-6, "after the jump: \(next)")
    }

    @Test("At rest (the source gone) it asks for nothing, and the next attitude starts anew")
    func rest() {
        var stick = GyroStick(mapping: GyroStickMapping())
        _ = turning(&stick, degreesPerSecond: 30, seconds: 0.5)
        stick.rest()
        #expect(stick.velocity == .zero)
        // Back 40° further on: no turn measured across the gap.
        let v = stick.update(
            rollRadians: 0, pitchRadians: 0, yawRadians: 0.7, motionTimeNanoseconds: 9_000_000_000, enabled: true)
        #expect(v == .zero)
    }
}
