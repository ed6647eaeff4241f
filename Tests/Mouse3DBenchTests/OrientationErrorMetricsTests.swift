import Mouse3DBench
import Mouse3DCore
import Testing

private let degree = Double.pi / 180

@Suite("BROAD error metrics")
struct OrientationErrorMetricsTests {
    let truth: [Quaternion] = (0..<200).map {
        Attitude(rollRadians: 0.01 * Double($0), pitchRadians: 0.2, yawRadians: 0.03 * Double($0)).quaternion
    }

    @Test("Perfect estimates score zero")
    func perfect() {
        let m = OrientationErrorMetrics(estimates: truth, truth: truth, counted: nil, sampleRateHertz: 100)
        #expect(m.inclinationDegrees < 1e-6 && m.headingDegrees < 1e-6 && m.totalDegrees < 1e-6)
        #expect(m.countedSamples == 200)
    }

    @Test("A constant heading offset costs neither inclination nor heading")
    func headingOffset() {
        let turn = Quaternion(axis: SIMD3(0, 0, 1), angleRadians: 40 * degree)
        let m = OrientationErrorMetrics(
            estimates: truth.map { turn * $0 }, truth: truth, counted: nil, sampleRateHertz: 100)
        #expect(m.inclinationDegrees < 1e-6)
        #expect(m.headingDegrees < 1e-6)
        #expect(m.totalDegrees < 1e-6)
    }

    @Test("A 5° tilt error shows as 5° inclination")
    func tilt() {
        let tilt = Quaternion(axis: SIMD3(1, 0, 0), angleRadians: 5 * degree)
        let m = OrientationErrorMetrics(
            estimates: truth.map { tilt * $0 }, truth: truth, counted: nil, sampleRateHertz: 100)
        #expect(abs(m.inclinationDegrees - 5) < 1e-6)
    }

    @Test("Uncounted samples and unknown truth are left out")
    func mask() {
        var estimates = truth
        estimates[0] = Quaternion(axis: SIMD3(1, 0, 0), angleRadians: 1)
        var t = truth
        t[1] = Quaternion(w: .nan, x: .nan, y: .nan, z: .nan)
        let counted = (0..<200).map { $0 != 0 }
        let m = OrientationErrorMetrics(estimates: estimates, truth: t, counted: counted, sampleRateHertz: 100)
        #expect(m.countedSamples == 198)
        #expect(m.inclinationDegrees < 1e-6)
    }
}
