import Mouse3DCore
import Testing

final class RecordingOutput: AttitudeSink {
    var updates: [AttitudeUpdate] = []
    var ended = 0
    func write(_ update: AttitudeUpdate) throws { updates.append(update) }
    func streamEnded(_ stream: StreamLabel) { ended += 1 }
}

@Suite("Prediction through gaps (--extrapolate)")
struct ExtrapolatingOutputTests {
    /// A stream turning at 90 °/s about the vertical, a frame every 10 ms, sent and received at once.
    static func frame(_ k: Int, label: StreamLabel) -> AttitudeUpdate {
        let t = UInt64(k) * 10_000_000
        let yaw = Double(k) * 0.01 * .pi / 2
        return AttitudeUpdate(
            stream: label, sequence: UInt64(k), buttons: .clutch,
            frame: AttitudeFrame(Attitude(rollRadians: 0.1, pitchRadians: 0.2, yawRadians: yaw)),
            sentNanoseconds: t + 5_000_000_000, receivedNanoseconds: t)
    }

    @Test("A gap is filled at the stream's rate with the turn carried on, up to the cap; a frame takes over at once")
    func gap() throws {
        let inner = RecordingOutput()
        let output = ExtrapolatingOutput(inner, capNanoseconds: 50_000_000)
        let label = StreamLabel(sender: "a", stream: "1", description: "a")
        for k in 0...20 { try output.write(Self.frame(k, label: label)) }  // up to 200 ms
        // Frames 21... are lost: run the clock on to 400 ms.
        var now: UInt64 = 200_000_000
        while now < 400_000_000 {
            if let d = output.nextDeadline, d <= now { try output.tick(now: now) }
            now += 1_000_000
        }
        let predicted = inner.updates.dropFirst(21)
        #expect(
            predicted.count == 4 && output.predicted == 4,
            "predictions at 215, 225, 235, 245 ms: \(predicted.map(\.receivedNanoseconds))")
        for p in predicted {
            let elapsed = min(Double(p.receivedNanoseconds) * 1e-9 - 0.2, 0.05)
            let expected = 0.2 * .pi / 2 + elapsed * .pi / 2
            #expect(
                abs(Double(p.frame.yaw) - expected) < 1e-4,
                "yaw \(p.frame.yaw) at \(p.receivedNanoseconds): \(expected)")
            #expect(
                abs(Double(p.frame.roll) - 0.1) < 1e-4 && abs(Double(p.frame.pitch) - 0.2) < 1e-4
                    && p.buttons == .clutch)
        }
        // Frames return: the real one goes straight through.
        try output.write(Self.frame(40, label: label))
        #expect(inner.updates.last?.sequence == 40 && abs(Double(inner.updates.last!.frame.yaw) - 0.4 * .pi / 2) < 1e-6)
        output.streamEnded(label)
        #expect(inner.ended == 1 && output.nextDeadline == nil)
    }

    @Test("A steady stream is never predicted")
    func steady() throws {
        let inner = RecordingOutput()
        let output = ExtrapolatingOutput(inner, capNanoseconds: 100_000_000)
        let label = StreamLabel(sender: "a", stream: "1", description: "a")
        for k in 0...100 {
            let f = Self.frame(k, label: label)
            if let d = output.nextDeadline, d <= f.receivedNanoseconds { try output.tick(now: f.receivedNanoseconds) }
            try output.write(f)
        }
        #expect(output.predicted == 0 && inner.updates.count == 101)
    }
}
