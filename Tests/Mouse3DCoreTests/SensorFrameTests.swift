import Mouse3DCore
import Testing

@Suite("An IIO sensor's frame: mount matrix, the accelerometer's sign and the hold")
struct SensorFrameTests {
    /// The 24 rotations that take axes to axes.
    static let axisRotations: [Matrix3] = {
        let axes: [SIMD3<Double>] = [
            SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1)
        ]
        var found: [Matrix3] = []
        for x in axes {
            for y in axes where dot(x, y) == 0 {
                found.append(Matrix3(x, y, cross(x, y)))
            }
        }
        return found
    }()

    /// mouse3d's frame from the device's when `up` is the device's up: lying flat forward is y,
    /// upright forward is −z; left = up × forward.
    static func holdMatrix(up: SIMD3<Double>) -> Matrix3 {
        let forward: SIMD3<Double> = abs(up.z) > 0.5 ? SIMD3(0, 1, 0) : SIMD3(0, 0, -1)
        return Matrix3(forward, cross(up, forward), up)
    }

    static func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tolerance: Double = 1e-9) -> Bool {
        let d = a - b
        return (d * d).sum().squareRoot() <= tolerance
    }

    /// A small rotation about `axis` by `radians` (Rodrigues), for a hand's tilt.
    static func rotation(axis: SIMD3<Double>, radians: Double) -> Matrix3 {
        let k = axis / (axis * axis).sum().squareRoot()
        let (c, s) = (Double.cos(radians), Double.sin(radians))
        func row(_ i: Int) -> SIMD3<Double> {
            var e = SIMD3<Double>.zero
            e[i] = 1
            return e * c + cross(k, e) * s + k * (dot(k, e) * (1 - c))
        }
        return Matrix3(row(0), row(1), row(2)).transposed
    }

    enum Origin: CaseIterable { case identity, kernel, configuredMirror, hwdb, hwdbWrongZ }

    @Test(
        "Every axis-aligned mounting, both conventions, flat and upright, every way the matrix arrives: a left turn is +z, the far edge or the top toward the person is −y (nose up), gravity is +z",
        arguments: [SensorFrame.Convention.specificForce, .gravity], [true, false])
    func everyMounting(convention: SensorFrame.Convention, flat: Bool) throws {
        let g = 9.80665
        let deviceUp: SIMD3<Double> = flat ? SIMD3(0, 0, 1) : SIMD3(0, 1, 0)
        // A 15° hand tilt about an odd axis: the hold is still clear.
        let hand = Self.rotation(axis: SIMD3(0.3, -0.8, 0.5), radians: 15 * .pi / 180)
        let forceDevice = hand * (deviceUp * g)
        let expectedHold = Self.holdMatrix(up: deviceUp)
        // Turning left is about up; the far edge (flat) or the top (upright) toward the person is
        // about the device's x.
        let turnLeft = deviceUp * 1.0
        let noseUp = SIMD3<Double>(1, 0, 0)
        var cases = 0
        for r in Self.axisRotations {
            for origin in Origin.allCases {
                // What the chip reads: its rotation's inverse applied to the device's truth.
                let chipForce = r.transposed * forceDevice * convention.sign
                let mount: MountMatrix
                let from: SensorFrame.MountOrigin
                switch origin {
                case .identity:
                    guard r == .diagonal(1) else { continue }
                    (mount, from) = (.identity, .none)
                case .kernel: (mount, from) = (MountMatrix(matrix: r), .kernel)
                case .configuredMirror: (mount, from) = (MountMatrix(matrix: r * -1), .configuration)
                // As a hwdb author writes it: x and y read the gravity vector afterwards.
                case .hwdb: (mount, from) = (MountMatrix(matrix: r * (-convention.sign)), .hwdb)
                case .hwdbWrongZ:
                    (mount, from) = (MountMatrix(matrix: Matrix3(r.r0, r.r1, r.r2 * -1) * (-convention.sign)), .hwdb)
                }
                let frame = SensorFrame.decide(
                    reading: chipForce, mount: mount, origin: from, driverConvention: convention)
                #expect(frame.hold == (flat ? .flat : .upright))
                #expect(frame.convention == convention, "\(origin) \(r)")
                #expect(
                    Self.close(frame.accelerometer * chipForce, expectedHold * forceDevice),
                    "\(origin) \(r): gravity \(frame.accelerometer * chipForce)")
                let leftInMouse3d = frame.gyroscope * (r.transposed * turnLeft)
                #expect(Self.close(leftInMouse3d, SIMD3(0, 0, 1)), "\(origin) \(r): left turn \(leftInMouse3d)")
                let tiltInMouse3d = frame.gyroscope * (r.transposed * noseUp)
                #expect(Self.close(tiltInMouse3d, SIMD3(0, -1, 0)), "\(origin) \(r): nose up \(tiltInMouse3d)")
                #expect(abs(frame.gyroscope.determinant - 1) < 1e-9, "a rotation")
                cases += 1
            }
        }
        #expect(cases == 24 * 4 + 1)
    }

    @Test(
        "Where the reading tells, the convention is found whatever the driver is said to read; where it cannot (on its side; upright with an hwdb matrix), the driver's stands"
    )
    func conventionFromTheReading() {
        for truth in [SensorFrame.Convention.specificForce, .gravity] {
            for claimed in [SensorFrame.Convention.specificForce, .gravity] {
                let flat = SensorFrame.decide(
                    reading: SIMD3(0.1, -0.2, 9.7) * truth.sign, mount: .identity, origin: .none,
                    driverConvention: claimed)
                #expect(
                    flat.convention == truth && flat.hold == .flat && flat.conventionReason == "the reading at start")
                let upright = SensorFrame.decide(
                    reading: SIMD3(0.3, 9.7, 1.0) * truth.sign, mount: .identity, origin: .none,
                    driverConvention: claimed
                )
                #expect(upright.convention == truth && upright.hold == .upright)
                let side = SensorFrame.decide(
                    reading: SIMD3(9.7, 0.5, 1.0) * truth.sign, mount: .identity, origin: .none,
                    driverConvention: claimed)
                #expect(side.convention == claimed && side.hold == .sideways)
                #expect(side.conventionReason.contains("on its side"))
                let hwdbUpright = SensorFrame.decide(
                    reading: SIMD3(0.3, -9.7, 1.0), mount: .identity, origin: .hwdb, driverConvention: claimed)
                #expect(hwdbUpright.convention == claimed && hwdbUpright.hold == .upright)
            }
        }
    }

    @Test("On its side the hold is upright, pointing with the back; which edge is up decides left")
    func sideways() {
        // Right edge up (x up), the specific force read: forward is the back (−z), left is then +y.
        let f = SensorFrame.decide(
            reading: SIMD3(9.8, 0, 0), mount: .identity, origin: .none, driverConvention: .specificForce)
        #expect(f.holdMatrix == Matrix3(SIMD3(0, 0, -1), SIMD3(0, 1, 0), SIMD3(1, 0, 0)))
        #expect(f.gyroscope * SIMD3(1, 0, 0) == SIMD3(0, 0, 1), "a left turn is about the device's up, x")
    }

    @Test("The mount matrix's precedence: configuration, hwdb, kernel, identity")
    func precedence() {
        let a = MountMatrix("0,1,0;-1,0,0;0,0,1")!
        let b = MountMatrix("0, -1, 0; 1, 0, 0; 0, 0, 1")!
        let c = MountMatrix("-1,0,0;0,-1,0;0,0,1")!
        #expect(SensorFrame.mount(configured: a, hwdb: b, kernel: c) == (a, .configuration))
        #expect(SensorFrame.mount(configured: nil, hwdb: b, kernel: c) == (b, .hwdb))
        #expect(SensorFrame.mount(configured: nil, hwdb: nil, kernel: c) == (c, .kernel))
        #expect(SensorFrame.mount(configured: nil, hwdb: nil, kernel: nil) == (.identity, .none))
    }

    @Test("HID sensor hubs (accel_3d) read the gravity vector; other drivers the specific force")
    func driverConventions() {
        #expect(SensorFrame.Convention.ofDriver(named: "accel_3d") == .gravity)
        #expect(SensorFrame.Convention.ofDriver(named: "bmi160") == .specificForce)
        #expect(SensorFrame.Convention.ofDriver(named: "mpu6500") == .specificForce)
    }

    @Test("The start-up line says where the axes come from, what the accelerometer reads and the hold")
    func description() {
        let f = SensorFrame.decide(
            reading: SIMD3(0, 0, -9.8), mount: .identity, origin: .none, driverConvention: .gravity)
        #expect(
            f.description
                == "axes: the driver's own (no mount matrix); its accelerometer reads the gravity vector (the reading at start); held lying flat, pointing with its top edge"
        )
    }
}
