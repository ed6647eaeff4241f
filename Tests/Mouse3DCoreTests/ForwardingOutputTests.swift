import Mouse3DCore
import Testing

/// Every call an output can get, as a wrapper's inner output sees them, and what it observes of
/// the source.
final class CallLog: AttitudeSink, SourceObserver {
    var calls: [String] = []
    func write(_ update: AttitudeUpdate) throws { calls.append("write") }
    func endOfBatch() throws { calls.append("endOfBatch") }
    func streamEnded(_ stream: StreamLabel) { calls.append("streamEnded") }
    func sourceEnded() throws { calls.append("sourceEnded") }
    func finish() { calls.append("finish") }
    func sampleFused(_ sample: MotionSample, gyroBias: SIMD3<Double>, nowNanoseconds: UInt64) {
        calls.append("sampleFused \(nowNanoseconds)")
    }
    func gamepadButton(code: Int32, pressed: Bool) { calls.append("gamepadButton \(code) \(pressed)") }
    func gamepadAxis(code: Int32, value: Float) { calls.append("gamepadAxis \(code) \(value)") }
}

@Suite("Wrapping outputs pass on what they do not change")
struct ForwardingOutputTests {
    /// The calls a wrapper takes no part in, made on `output`; what reached `inner`.
    static func passThrough(_ output: any AttitudeOutput, _ inner: CallLog) throws -> [String] {
        output.streamEnded(StreamLabel(sender: "a", stream: "1", description: "a"))
        try output.sourceEnded()
        output.finish()
        return inner.calls
    }

    static let expected = ["streamEnded", "sourceEnded", "finish"]

    @Test(
        "A pipeline's observers: those given and every output that is one, behind wrappers too, each called once"
    )
    func observersBehindWrappers() throws {
        let paced = CallLog()
        let bare = CallLog()
        let given = CallLog()
        let pipeline = AttitudePipeline(
            outputs: [
                PacedOutput(paced, hertz: 100, start: 0),
                ExtrapolatingOutput(PacedOutput(bare, hertz: 100, start: 0), capNanoseconds: 50_000_000)
            ],
            observers: [given])
        pipeline.gamepadButton(code: 304, pressed: true)
        pipeline.gamepadAxis(code: 0, value: -0.5)
        pipeline.sampleFused(
            MotionSample(
                timestampNanoseconds: 5, angularVelocityRadiansPerSecond: .zero,
                specificForceMetersPerSecondSquared: [0, 0, 9.8]), gyroBias: .zero, nowNanoseconds: 7)
        let expected = ["gamepadButton 304 true", "gamepadAxis 0 -0.5", "sampleFused 7"]
        #expect(paced.calls == expected && bare.calls == expected && given.calls == expected)
        #expect(AttitudePipeline(outputs: [PacedOutput(paced, hertz: 100, start: 0)]).observers.count == 1)
    }

    @Test("Pacing passes on stream ends, the source's end and the finish")
    func paced() throws {
        let inner = CallLog()
        #expect(try Self.passThrough(PacedOutput(inner, hertz: 100, start: 0), inner) == Self.expected)
    }

    @Test("Prediction passes on stream ends, the source's end, the finish and batch ends")
    func extrapolating() throws {
        let inner = CallLog()
        let output = ExtrapolatingOutput(inner, capNanoseconds: 50_000_000)
        #expect(try Self.passThrough(output, inner) == Self.expected)
        try output.endOfBatch()
        #expect(inner.calls.last == "endOfBatch")
    }

    @Test("A wrapper that takes no part in a call forwards it by default; a sink ignores it")
    func defaults() throws {
        final class Bare: ForwardingOutput {
            let inner: any AttitudeOutput
            init(_ inner: any AttitudeOutput) { self.inner = inner }
        }
        let inner = CallLog()
        let bare = Bare(inner)
        #expect(try Self.passThrough(bare, inner) == Self.expected)
        try bare.write(
            AttitudeUpdate(
                stream: .local, sequence: 0, buttons: [], frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0),
                receivedNanoseconds: 0))
        try bare.endOfBatch()
        try bare.tick(now: 1)
        #expect(inner.calls.suffix(2) == ["write", "endOfBatch"])
        #expect(bare.nextDeadline == nil)
    }
}
