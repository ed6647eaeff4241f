import Mouse3DCore
import RealModule
import Testing

@Suite("calibrate --axes: the rotation from three motions a person makes")
struct AxesSetupTests {
    /// One thing the simulated person does: a rate in mouse3d's frame for some seconds.
    struct Motion {
        var seconds: Double
        var degreesPerSecond: SIMD3<Double>
    }

    static func still(_ s: Double) -> Motion { Motion(seconds: s, degreesPerSecond: .zero) }
    static let turnLeft90 = [Motion(seconds: 1, degreesPerSecond: SIMD3(0, 0, 90)), still(1)]
    static let tiltUp30 = [Motion(seconds: 1, degreesPerSecond: SIMD3(0, -30, 0)), still(1)]

    /// A device whose axes are `frame · v` (v in mouse3d's frame) for both sensors, its
    /// accelerometer reading `sign` times the specific force, a gyroscope bias, white noise and a
    /// hand's tremor, sampled at 200 Hz through `motions`; fed to `procedure`.
    struct Simulation {
        var frame: Matrix3
        var sign = 1.0
        var bias = SIMD3<Double>(0.8, -0.5, 0.3)  // °/s
        var gyroNoise = 0.2  // °/s
        var forceNoise = 0.03  // m/s²
        var tremor = 0.5  // °/s at 7 Hz
        var random = SplitMix64(seed: 1)
        var attitude = Quaternion(w: 1, x: 0, y: 0, z: 0)
        var time: Int64 = 0

        mutating func gaussian() -> Double {
            let u1 = max(1e-12, Double(random.next() >> 11) / Double(1 << 53))
            let u2 = Double(random.next() >> 11) / Double(1 << 53)
            return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * .pi * u2)
        }

        mutating func noise(_ sigma: Double) -> SIMD3<Double> { SIMD3(gaussian(), gaussian(), gaussian()) * sigma }

        mutating func run(_ motions: [Motion], into procedure: inout AxesSetupProcedure)
            -> [AxesSetupProcedure.Progress]
        {
            var seen: [AxesSetupProcedure.Progress] = []
            for m in motions {
                for _ in 0..<Int((m.seconds * 200).rounded()) {
                    let t = Double(time) * 1e-9
                    let shake =
                        SIMD3(Double.sin(2 * .pi * 7 * t), Double.cos(2 * .pi * 7 * t), Double.sin(2 * .pi * 5 * t))
                        * tremor
                    let rate = (m.degreesPerSecond + shake) * (.pi / 180)
                    let dt = 0.005
                    if length(rate) > 0 {
                        attitude =
                            (attitude * Quaternion(axis: rate / length(rate), angleRadians: length(rate) * dt))
                            .normalized
                    }
                    time += 5_000_000
                    let force = attitude.conjugate.rotate(SIMD3(0, 0, 9.80665))
                    let sample = MotionSample(
                        timestampNanoseconds: time,
                        angularVelocityRadiansPerSecond: frame * rate + (bias + noise(gyroNoise)) * (.pi / 180),
                        specificForceMetersPerSecondSquared: frame * force * sign + noise(forceNoise))
                    let p = procedure.add(sample)
                    switch p {
                    case .next, .refused, .moved: seen.append(p)
                    default: break
                    }
                }
            }
            return seen
        }
    }

    static let axisRotations: [Matrix3] = {
        let axes: [SIMD3<Double>] = [
            SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1)
        ]
        var found: [Matrix3] = []
        for x in axes {
            for y in axes where dot(x, y) == 0 { found.append(Matrix3(x, y, cross(x, y))) }
        }
        return found
    }()

    /// The largest angle, in degrees, between a column of `a` and the same column of `b`.
    static func degreesApart(_ a: Matrix3, _ b: Matrix3) -> Double {
        var worst = 0.0
        for i in 0..<3 {
            let u = a.transposed.row(i)
            let v = b.transposed.row(i)
            worst = max(worst, Double.acos(max(-1, min(1, dot(u, v) / (length(u) * length(v))))) * 180 / .pi)
        }
        return worst
    }

    @Test(
        "Every axis-aligned frame and random ones, either accelerometer sign, with bias, noise and tremor: the rotation is found within 2° and the sign exactly"
    )
    func findsTheFrame() throws {
        var random = SplitMix64(seed: 7)
        var frames = Self.axisRotations
        for _ in 0..<24 {
            // Random rotations: a random axis and angle.
            let axis = SIMD3(
                Double(random.next() % 2001) - 1000, Double(random.next() % 2001) - 1000,
                1 + Double(random.next() % 1000))
            let angle = Double(random.next() % 6283) / 1000
            frames.append(Quaternion(axis: axis / length(axis), angleRadians: angle).rotationMatrix)
        }
        var worst = 0.0
        for (i, frame) in frames.enumerated() {
            for sign in [1.0, -1.0] {
                var sim = Simulation(
                    frame: frame, sign: sign, random: SplitMix64(seed: UInt64(i * 2 + (sign > 0 ? 0 : 1))))
                var p = AxesSetupProcedure(device: "test")
                _ = sim.run([Self.still(2)] + Self.turnLeft90 + Self.tiltUp30, into: &p)
                let setup = try #require(p.result, "frame \(i) sign \(sign): \(p.refusals)")
                #expect(setup.accelerometerSign == sign)
                let apart = Self.degreesApart(setup.rotation, frame.transposed)
                worst = max(worst, apart)
                #expect(apart < 2, "frame \(i): \(apart)° off")
                #expect(abs(setup.rotation.determinant - 1) < 1e-9)
            }
        }
        print("calibrate --axes: \(frames.count * 2) frames found, the worst column \(fixed(worst, 2))° off")
    }

    @Test("Applied to the device's samples, the setup gives mouse3d's frame: gravity up, a left turn +z")
    func applies() throws {
        let frame = Matrix3(SIMD3(0, 0, -1), SIMD3(1, 0, 0), SIMD3(0, -1, 0))
        var sim = Simulation(frame: frame, sign: -1)
        var p = AxesSetupProcedure(device: "test")
        _ = sim.run([Self.still(2)] + Self.turnLeft90 + Self.tiltUp30, into: &p)
        let setup = try #require(p.result)
        let raw = MotionSample(
            timestampNanoseconds: 0, angularVelocityRadiansPerSecond: frame * SIMD3(0, 0, 1),
            specificForceMetersPerSecondSquared: frame * SIMD3(0, 0, 9.8) * -1)
        let turned = setup.apply(raw)
        #expect(length(turned.angularVelocityRadiansPerSecond - SIMD3(0, 0, 1)) < 0.03)
        #expect(length(turned.specificForceMetersPerSecondSquared - SIMD3(0, 0, 9.8)) < 0.3)
    }

    @Test("A turn too small is refused with how far it went, and the step is asked for again; a good one then goes on")
    func tooSmall() throws {
        var sim = Simulation(frame: .diagonal(1))
        var p = AxesSetupProcedure(device: "test")
        let seen = sim.run(
            [Self.still(2), Motion(seconds: 0.5, degreesPerSecond: SIMD3(0, 0, 40)), Self.still(1)] + Self.turnLeft90
                + Self.tiltUp30, into: &p)
        guard case .refused(.tooSmall(.turnLeft, let turned, 30)) = seen.dropFirst().first else {
            Issue.record("expected the small turn refused first: \(seen)")
            return
        }
        #expect(abs(turned - 20) < 2)
        #expect(p.result != nil, "\(p.refusals)")
        #expect(
            AxesSetupProcedure.Refusal.tooSmall(.turnLeft, 20, 30).description
                == "the turn was 20°, at least 30° is needed: turn further")
    }

    @Test("Both motions about one axis (the tilt done as another turn): refused, nothing found")
    func sameAxis() {
        var sim = Simulation(frame: .diagonal(1))
        var p = AxesSetupProcedure(device: "test")
        let seen = sim.run([Self.still(2)] + Self.turnLeft90 + Self.turnLeft90, into: &p)
        #expect(p.result == nil)
        guard case .refused(.sameAxis(let apart)) = seen.last else {
            Issue.record("expected the second turn refused as the same axis: \(seen)")
            return
        }
        #expect(apart < 5)
    }

    @Test("A turn about the forward axis (a roll) is not a turn to the left")
    func turnNotVertical() {
        var sim = Simulation(frame: .diagonal(1))
        var p = AxesSetupProcedure(device: "test")
        let seen = sim.run(
            [Self.still(2), Motion(seconds: 1, degreesPerSecond: SIMD3(60, 0, 0)), Self.still(1)], into: &p)
        guard case .refused(.turnNotVertical(let degrees)) = seen.last else {
            Issue.record("expected a roll refused: \(seen)")
            return
        }
        #expect(degrees > 80)
    }

    @Test("A wobbly turn (half of it about another axis) is refused as not about one axis")
    func wobbly() {
        var sim = Simulation(frame: .diagonal(1))
        var p = AxesSetupProcedure(device: "test")
        let seen = sim.run(
            [
                Self.still(2), Motion(seconds: 0.5, degreesPerSecond: SIMD3(0, 0, 90)),
                Motion(seconds: 0.5, degreesPerSecond: SIMD3(90, 0, 0)),
                Motion(seconds: 0.5, degreesPerSecond: SIMD3(-90, 0, 0)),
                Self.still(1)
            ], into: &p)
        guard case .refused(.notAboutOneAxis(.turnLeft, let fraction)) = seen.last else {
            Issue.record("expected a wobbly turn refused: \(seen)")
            return
        }
        #expect(fraction < 0.8)
    }

    @Test(
        "Left-handed input (both sensors in a mirrored frame, as a driver that negates one axis of each): refused, since no rotation fixes it",
        arguments: [0, 1, 2])
    func leftHanded(mirroredAxis: Int) {
        var m = Matrix3.diagonal(1)
        m[mirroredAxis, mirroredAxis] = -1
        var sim = Simulation(frame: m)
        var p = AxesSetupProcedure(device: "test")
        let seen = sim.run([Self.still(2)] + Self.turnLeft90 + Self.tiltUp30, into: &p)
        #expect(p.result == nil, "a mirrored frame taken: \(String(describing: p.result))")
        guard case .refused(.axesDisagree(let degrees)) = seen.last else {
            Issue.record("expected the mirrored frame refused: \(seen)")
            return
        }
        #expect(degrees > 30)
    }

    @Test("It moved while it should be still: starting over, then on")
    func movedWhileStill() throws {
        var sim = Simulation(frame: .diagonal(1))
        var p = AxesSetupProcedure(device: "test")
        let seen = sim.run(
            [Self.still(1), Motion(seconds: 0.2, degreesPerSecond: SIMD3(0, 40, 0)), Self.still(2)] + Self.turnLeft90
                + Self.tiltUp30, into: &p)
        #expect(seen.first == .moved, "\(seen)")
        #expect(p.step == .done && p.result != nil, "\(p.refusals)")
    }

    @Test("The file's text reads back; a mirrored rotation or an unknown convention is refused with file and line")
    func text() throws {
        let setup = AxesSetup(
            device: "evdev 1234:5678:aa", rotation: Matrix3(SIMD3(0, 0, -1), SIMD3(1, 0, 0), SIMD3(0, -1, 0)),
            accelerometerSign: -1)
        let back = try AxesSetup(parsing: setup.text, file: "f.axes")
        #expect(back == setup)
        #expect(AxesSetup.fileName(for: "evdev 1234:5678:aa").hasSuffix(".axes"))
        let mirrored = setup.text.replacing("0.0000, 0.0000, -1.0000", with: "0.0000, 0.0000, 1.0000")
        #expect(throws: KeyValueText.ParseError.self) { try AxesSetup(parsing: mirrored, file: "f.axes") }
        do {
            _ = try AxesSetup(parsing: setup.text.replacing("gravity vector", with: "up"), file: "f.axes")
            Issue.record("an unknown convention was read")
        } catch {
            #expect("\(error)".contains("f.axes") && "\(error)".contains("specific force"))
        }
    }
}
