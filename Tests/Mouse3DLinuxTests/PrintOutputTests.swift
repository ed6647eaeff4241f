import Glibc
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("Printed lines' time")
struct PrintOutputTests {
    /// The wall clock less the monotonic one, read as a pair many times: the closest pair's
    /// difference (a pair split by a preemption reads too far apart).
    static func clockOffset() -> Int64 {
        var best: (spread: UInt64, offset: Int64) = (.max, 0)
        for _ in 0..<20 {
            let before = MonotonicClock.nanoseconds()
            let wall = WallClock.nanoseconds()
            let after = MonotonicClock.nanoseconds()
            let mono = before / 2 + after / 2
            if after - before < best.spread {
                best = (after - before, Int64(bitPattern: wall &- mono))
            }
        }
        return best.offset
    }

    @Test(
        "A jsonl line's time is when its frame arrived, on the wall clock: before the clocks were last read, just after, and past the 10 ms a reading serves"
    )
    func arrivalTime() throws {
        let path = "/tmp/mouse3d-printoutput-\(getpid()).jsonl"
        defer { unlink(path) }
        let printer = PrintOutput(format: .jsonl, output: try BufferedOutput(creatingFileAt: path))
        let label = StreamLabel(sender: "127.0.0.1:1", stream: "1", description: "127.0.0.1:1 stream 1")
        let now = MonotonicClock.nanoseconds()
        // Earlier than the reading the first line makes, then earlier again (before that reading),
        // then within its 10 ms, then past them (a new reading), then before that one.
        let arrivals: [UInt64] = [
            now - 5_000_000, now - 7_000_000, now + 3_000_000, now + 25_000_000, now + 24_000_000
        ]
        for (i, arrival) in arrivals.enumerated() {
            try printer.write(
                AttitudeUpdate(
                    stream: label, sequence: UInt64(i), buttons: [], frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0),
                    receivedNanoseconds: arrival))
        }
        printer.finish()
        let offset = Self.clockOffset()
        let text = String(decoding: try FileContents.read(path: path), as: UTF8.self)
        let lines = text.split(separator: "\n")
        try #require(lines.count == arrivals.count, "\(text)")
        for (line, arrival) in zip(lines, arrivals) {
            let field = try #require(line.firstRange(of: #""time":"#), "\(line)")
            let value = try #require(Double(line[field.upperBound...].prefix { $0 != "," }), "\(line)")
            let expected = Double(Int64(arrival) + offset) / 1e9
            // Microseconds printed; 1 ms allows a wall clock slewed by NTP meanwhile.
            #expect(abs(value - expected) < 0.001, "\(line): expected \(expected)")
        }
    }
}
