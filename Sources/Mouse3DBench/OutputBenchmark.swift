import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// `mouse3d bench output`: latency from a received frame to its uinput write.
public enum OutputBenchmark {
    /// Feeds a virtual device of `mode` `frames` frames at 1 kHz, turning steadily, and returns the
    /// latency summary (arrival stamp → return of the SYN_REPORT write), after 100 frames of warm-up.
    public static func run(mode: UinputMode, frames: Int) throws -> String {
        let output = UinputOutput(mode: mode, mapping: PointerMapping(), diagnostics: Diagnostics(quiet: true))
        defer { output.finish() }
        let stream = StreamLabel(sender: "127.0.0.1:1", stream: "1", description: "127.0.0.1:1 stream 1")
        var recorder = LatencyRecorder()
        var next = MonotonicClock.nanoseconds()
        for i in 0..<frames {
            next += 1_000_000
            MonotonicClock.sleep(untilNanoseconds: next)
            let yaw = Float(Double(i % 3600) * 0.1 * .pi / 180) - .pi
            let received = MonotonicClock.nanoseconds()
            try output.write(
                AttitudeUpdate(
                    stream: stream, sequence: UInt64(i), buttons: [.clutch],
                    frame: AttitudeFrame(roll: 0.1, pitch: 0.2, yaw: yaw),
                    receivedNanoseconds: received))
            if i >= 100 { recorder.record(nanoseconds: MonotonicClock.nanoseconds() - received) }  // after warm-up
        }
        return recorder.summary
    }
}
