import Mouse3DBench
import Mouse3DCore
import Testing

@Suite("bench gyro-mouse figures")
struct GyroMouseBenchmarkTests {
    @Test(
        "The figures say what the mapping does: full scale, leakage only in local space, smoothing lag only when slow, drift only without bias estimation"
    )
    func figures() {
        var mapping = PointerMapping()
        mapping.smoothingDegreesPerSecond = 5
        mapping.smoothingWindowSeconds = 0.1
        let figures = GyroMouseBenchmark.run(parameters: AttitudeEstimatorParameters(), mapping: mapping, hertz: 100)
        func value(_ name: String) -> Double { figures.first { $0.name == name }?.value ?? .nan }
        #expect(abs(value("360° turn scale error")) < 0.5)
        #expect(value("gyro-space leakage, local") > 40)  // tan 30° = 58 %
        #expect(value("gyro-space leakage, world") < 2 && value("gyro-space leakage, player") < 2)
        #expect(abs(value("smoothing latency, slow (2 °/s)") - 50) < 10)  // half the 100 ms window
        #expect(abs(value("smoothing latency, fast (100 °/s)")) < 2)
        #expect(value("drift at rest") < 0.05 && value("pointer drift at rest") < 1)
        #expect(value("drift at rest without bias estimation") > 20)  // 0.58 °/s about the vertical: 35 °/min
        #expect(value("bias convergence") < 10)
    }
}
