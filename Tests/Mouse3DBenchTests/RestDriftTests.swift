import Mouse3DBench
import Mouse3DCore
import Testing

@Suite("Drift at rest and bias convergence after power-up")
struct RestDriftTests {
    @Test("The figures read a known drift and a known convergence time")
    func figuresOfKnownTraces() {
        let points = RestDriftBenchmark.motion(seconds: 180, hertz: 10).generate()
        let truth = RestDriftBenchmark.gyroBiasRadiansPerSecond
        // Turning steadily at 0.5 °/min about z; the bias estimate is off until 42 s, then exact.
        let attitudes = points.map { p in
            Quaternion(
                axis: SIMD3(0, 0, 1), angleRadians: Double(p.sample.timestampNanoseconds) * 1e-9 / 60 * 0.5 * .pi / 180)
        }
        let biases = points.map { p in p.sample.timestampNanoseconds < 42_000_000_000 ? truth * 0.5 : truth }
        let f = RestDriftBenchmark.figures(points: points, attitudes: attitudes, biases: biases)
        #expect(abs(f.driftDegreesPerMinute - 0.5) < 1e-6)
        #expect(f.convergenceSeconds == 42)
        let never = RestDriftBenchmark.figures(points: points, attitudes: attitudes, biases: biases.map { $0 * 2 })
        #expect(never.convergenceSeconds == nil)
    }

    @Test(
        "mouse3d learns a 1 °/s bias at rest within 10 s and then drifts less than 0.1 °/min; without bias estimation it drifts"
    )
    func filterAtRest() {
        let points = RestDriftBenchmark.motion(seconds: 180, hertz: 100).generate()
        let f = RestDriftBenchmark.run(AttitudeEstimatorParameters(), points: points)
        #expect(f.driftDegreesPerMinute < 0.1)
        #expect(
            (f.convergenceSeconds ?? .infinity) < 10, "converged after \(String(describing: f.convergenceSeconds)) s")
        var blind = AttitudeEstimatorParameters()
        blind.restBiasEstimation = false
        blind.motionBiasEstimation = false
        let g = RestDriftBenchmark.run(blind, points: points)
        #expect(g.driftDegreesPerMinute > 10 && g.convergenceSeconds == nil)
    }
}
