import RealModule
import Testing

@testable import Mouse3DCore

@Suite("Quaternions and the attitude convention")
struct QuaternionTests {
    @Test("Yaw 90° turns the sensor's x axis into the reference y axis")
    func yawConvention() {
        let a = Attitude(rollRadians: 0, pitchRadians: 0, yawRadians: 90 * degree)
        let v = a.quaternion.rotate(SIMD3(1, 0, 0))
        #expect(length(v - SIMD3(0, 1, 0)) < 1e-12)
    }

    @Test("Roll 90° turns the sensor's y axis into the reference z axis (up)")
    func rollConvention() {
        let a = Attitude(rollRadians: 90 * degree, pitchRadians: 0, yawRadians: 0)
        #expect(length(a.quaternion.rotate(SIMD3(0, 1, 0)) - SIMD3(0, 0, 1)) < 1e-12)
    }

    @Test("Pitch 90° turns the sensor's x axis into the reference -z axis (nose down)")
    func pitchConvention() {
        let a = Attitude(rollRadians: 0, pitchRadians: 90 * degree, yawRadians: 0)
        #expect(length(a.quaternion.rotate(SIMD3(1, 0, 0)) - SIMD3(0, 0, -1)) < 1e-12)
    }

    @Test(
        "Euler angles round-trip through the quaternion",
        arguments: [
            (10.0, 20.0, 30.0), (-170.0, 45.0, 179.0), (0.0, -89.0, -90.0), (120.0, 0.0, 0.0)
        ])
    func eulerRoundTrip(roll: Double, pitch: Double, yaw: Double) {
        let a = Attitude(rollRadians: roll * degree, pitchRadians: pitch * degree, yawRadians: yaw * degree)
        #expect(abs(a.rollRadians - roll * degree) < 1e-9)
        #expect(abs(a.pitchRadians - pitch * degree) < 1e-9)
        #expect(abs(a.yawRadians - yaw * degree) < 1e-9)
    }

    @Test("Rotation matrix agrees with rotating vectors")
    func matrixMatchesRotate() {
        let q = Attitude(rollRadians: 0.3, pitchRadians: -0.7, yawRadians: 2.1).quaternion
        let v = SIMD3<Double>(0.2, -1.3, 0.9)
        #expect(length(q.rotationMatrix * v - q.rotate(v)) < 1e-12)
    }

    @Test("A 3×3 inverse times the matrix is the identity; a singular matrix has none")
    func inverse() throws {
        let m = Matrix3(SIMD3(4, 1, 0.5), SIMD3(1, 3, 0.2), SIMD3(0.5, 0.2, 2))
        let product = m * (try #require(m.inverse))
        for r in 0..<3 {
            for c in 0..<3 { #expect(abs(product[r, c] - (r == c ? 1 : 0)) < 1e-12) }
        }
        #expect(Matrix3(SIMD3(1, 2, 3), SIMD3(2, 4, 6), SIMD3(0, 0, 1)).inverse == nil)
    }

    @Test("Butterworth low-pass passes a constant unchanged and settles to a step")
    func lowPass() {
        let k = ButterworthCoefficients(timeConstantSeconds: 0.5, samplePeriodSeconds: 0.01)
        var f = ButterworthLowPass<SIMD2<Double>>(warmUpSamples: 50)
        for _ in 0..<100 { f.step(SIMD2(3, -2), k) }
        #expect(length(SIMD3(f.output.x - 3, f.output.y + 2, 0)) < 1e-12)
        for _ in 0..<20 { f.step(SIMD2(4, -2), k) }
        #expect(f.output.x > 3 && f.output.x < 3.5, "0.2 s into a 0.5 s time constant")
        for _ in 0..<1000 { f.step(SIMD2(4, -2), k) }
        #expect(abs(f.output.x - 4) < 1e-6)
    }
}

@Suite("Series sine and cosine of the gyroscope's half-angle step")
struct SinCosTests {
    @Test(
        "Agree with the library functions to 1e-15 across the switch-over",
        arguments: [
            0.0, 1e-9, -0.001, 0.01, 0.0499, -0.0499, 0.05, 0.3, -2.0
        ])
    func agree(x: Double) {
        // A half-angle of x: 2x rad turned in 1 s.
        // Past 180° turned (|x| > π/2) the step comes negated: the same rotation.
        let (s, c) = halfAngleStep(rateSquared: 4 * x * x, seconds: 1)
        let sign = Double.cos(x) < 0 ? -1.0 : 1.0
        #expect(abs(s * 2 * abs(x) - sign * Double.sin(abs(x))) < 1e-15)
        #expect(abs(c - sign * Double.cos(x)) < 1e-15)
    }

    @Test("Past 180° the step comes as its negative (the same rotation, cos(θ/2) ≥ 0)")
    func pastHalfTurn() {
        let rate = 4.0  // rad/s; 1 s turns 229°
        let (s, c) = halfAngleStep(rateSquared: rate * rate, seconds: 1)
        #expect(c >= 0)
        #expect(abs(c + Double.cos(rate / 2)) < 1e-15 && abs(s * rate + Double.sin(rate / 2)) < 1e-15)
    }
}

@Suite("Renormalization")
struct RenormalizationTests {
    @Test("A near-unit quaternion comes back to unit norm in one step")
    func oneStep() {
        let q = Quaternion(w: 0.5, x: 0.5, y: 0.5, z: 0.5)
        let off = Quaternion(w: q.w * (1 + 3e-8), x: q.x * (1 + 3e-8), y: q.y * (1 + 3e-8), z: q.z * (1 + 3e-8))
        #expect(abs(off.norm - 1) > 1e-8)
        // One Newton step leaves about 1.5·ε² of a scale error ε: 1.35e-15 from 3e-8.
        #expect(abs(off.renormalizedNearUnit.norm - 1) < 1e-14)
    }

    @Test("200,000 filter steps keep the attitude unit")
    func longRun() {
        var motion = SyntheticMotion(
            segments: (0..<20).map { i in
                .init(seconds: 10, radiansPerSecond: SIMD3(Double(i % 3) - 1, 0.7, Double(i % 5) * 0.3))
            }, sampleRateHertz: 1000)
        motion.gyroNoiseRadiansPerSecond = 0.01
        var estimator = AttitudeEstimator()
        for point in motion.generate() { estimator.update(point.sample) }
        #expect(estimator.counters.samples > 200_000)
        #expect(abs((estimator.attitude.quaternion * Quaternion.identity).norm - 1) < 1e-12)
    }
}
