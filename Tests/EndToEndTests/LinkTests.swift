import Foundation
import Glibc
import Testing

/// A hand-made plain stream (40-byte datagrams, README "The datagram"), so a test chooses exactly
/// which frames are lost and when they are sent.
struct PlainStream {
    let fd: Int32
    let port: UInt16
    var streamID: UInt32 = 0x5EED_0001

    init(to port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.port = port
        try #require(fd >= 0)
    }

    func close() { Glibc.close(fd) }

    func send(sequence: UInt64, sentNanoseconds: UInt64, roll: Float = 0, pitch: Float = 0, yaw: Float) {
        var d: [UInt8] = [0x4D, 0x33, 1, 0]
        func le<T: FixedWidthInteger>(_ v: T) {
            for i in 0..<(T.bitWidth / 8) { d.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
        }
        le(streamID)
        le(sequence)
        le(sentNanoseconds)
        le(UInt32(1))  // clutch
        for f in [roll, pitch, yaw] { le(f.bitPattern) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = d.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}

@Suite("Link quality and prediction through gaps, against a running receiver")
struct LinkTests {
    @Test("--stats shows loss %, reordering and jitter over the last 10 s")
    func stats() throws {
        let receiver = try Mouse3DProcess([
            "receive", "--insecure", "--listen", "127.0.0.1:0", "--stats", "--format", "jsonl"
        ])
        defer { _ = receiver.terminate() }
        let port = UInt16(try receiver.listeningPort())
        let stream = try PlainStream(to: port)
        defer { stream.close() }
        // 300 frames at 100 Hz: every 10th lost, one late (sent after a newer one); each stamped with
        // the real send time (this machine's monotonic clock), so loopback's transit is steady.
        func monotonic() -> UInt64 {
            var t = timespec()
            clock_gettime(CLOCK_MONOTONIC, &t)
            return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
        }
        let start = Date()
        for k in 0..<300 where k % 10 != 9 {
            if k == 151 { continue }
            stream.send(sequence: UInt64(k), sentNanoseconds: monotonic(), yaw: Float(k) * 0.001)
            if k == 152 { stream.send(sequence: 151, sentNanoseconds: monotonic(), yaw: 0.151) }
            Thread.sleep(until: start.addingTimeInterval(Double(k + 1) * 0.01))
        }
        // The first line once the stream has ended (": 0 frames/s"): every frame is in its 10 s.
        #expect(receiver.waitForError(containing: ": 0 frames/s", seconds: 4), "\(receiver.errors)")
        let line = try #require(
            receiver.errors.split(separator: "\n").first { $0.contains(": 0 frames/s") && $0.contains("last 10 s:") },
            "\(receiver.errors)")
        print("link: \(line)")
        // 269 accepted; skipped: 29 gaps seen (299's is never seen: nothing follows it) and 151, counted
        // when 152 came first; 151 then arrived late (reordered, dropped), so the network lost 29 of
        // 299: 9.70 %. The run's summary counts what was never output: 30.
        #expect(line.contains("lost 30, reordered 1") && line.contains("loss 9.70%, reordered 1"), "\(line)")
        let jitter = Double(line.split(separator: "jitter ")[1].prefix { $0 != " " }) ?? -1
        // Loopback at a steady rate: well under a frame interval. (Arrivals are stamped when the
        // receiver reads them, so one 30 ms stall of a busy machine near the end adds about 4 ms.)
        #expect(jitter >= 0 && jitter < 10, "loopback at a steady rate: \(jitter) ms")
    }

    @Test(
        "--extrapolate fills a 200 ms gap for at most its cap, with the turn carried on; frames take over when they return"
    )
    func extrapolate() throws { try UnderLoad.measure { try extrapolateAlone() } }

    func extrapolateAlone() throws {
        let listener = try OpentrackListener()
        defer { listener.close() }
        let opentrackPort = listener.port
        let receiver = try Mouse3DProcess(
            [
                "receive", "--insecure", "--listen", "127.0.0.1:0", "--opentrack", "127.0.0.1:\(opentrackPort)",
                "--extrapolate", "50"
            ])
        defer { _ = receiver.terminate() }
        let stream = try PlainStream(to: UInt16(try receiver.listeningPort()))
        defer { stream.close() }
        let load = MachineLoad(children: [receiver.process.processIdentifier])
        // Turning left at 1 rad/s, 100 Hz; frames 50–69 (200 ms) never come.
        let start = Date()
        for k in 0..<100 {
            if k < 50 || k >= 70 {
                stream.send(sequence: UInt64(k), sentNanoseconds: UInt64(k) * 10_000_000, yaw: Float(k) * 0.01)
            }
            Thread.sleep(until: start.addingTimeInterval(Double(k + 1) * 0.01))
        }
        // Read until the last frame's pose (yaw 0.99 rad) and the four predictions after it have come
        // (they follow within the 50 ms cap; 0.5 s after that pose arrived, whatever came is all
        // that comes), not for a guess at how long that takes. Each read takes what the socket holds.
        var poses: [[Double]] = []
        var wrongSize = 0
        var lastFrameSeen: Date?
        _ = waitUntil {
            let (more, wrong) = listener.poses()
            poses += more
            wrongSize += wrong
            guard let i = poses.lastIndex(where: { abs(-$0[3] * .pi / 180 - 0.99) < 1e-6 }) else { return false }
            lastFrameSeen = lastFrameSeen ?? Date()
            return poses.count - i - 1 >= 4 || Date().timeIntervalSince(lastFrameSeen!) > 0.5
        }
        #expect(wrongSize == 0, "\(wrongSize) datagrams were not 48 bytes")
        // opentrack's yaw is mouse3d's negated, in degrees.
        let yaws = poses.map { -$0[3] * .pi / 180 }
        print("extrapolate: \(yaws.count) poses for 80 frames")
        // Frames are told from predictions by value (frame k is k × 0.01 rad), not by position: a
        // sender paused past 15 ms on a busy machine puts predictions between frames too. Each
        // prediction follows the last frame, carrying the turn on within the 50 ms cap.
        let sent = (0..<100).filter { $0 < 50 || $0 >= 70 }
        var next = 0
        var predictions: [Int: [Double]] = [:]  // after frame k
        for yaw in yaws {
            if next < sent.count, abs(yaw - Double(sent[next]) * 0.01) < 1e-6 {
                next += 1
            } else if next > 0 {
                predictions[sent[next - 1], default: []].append(yaw)
            } else {
                Issue.record("a pose before the first frame: \(yaw)")
            }
        }
        #expect(next == sent.count, "\(next) of 80 frames came through, in order: \(yaws.suffix(40))")
        for (k, after) in predictions.sorted(by: { $0.key < $1.key }) {
            let last = Double(k) * 0.01
            // 15, 25, 35, 45 ms after the frame: at most four, each past the one before, none past the cap.
            #expect(after.count <= 4, "\(after.count) predictions after frame \(k): \(after)")
            #expect(
                after == after.sorted() && after.first! > last + 0.01, "the turn carried on after frame \(k): \(after)")
            #expect(after.last! <= last + 0.05 + 1e-6, "within the 50 ms cap after frame \(k): \(after)")
        }
        // The 200 ms gap after frame 49, and the silence after frame 99, are filled (a late timer on a
        // busy machine may leave out the last one or two of the four; fewer than two while others
        // took the CPU, beside the browser tests in CI, is measured again).
        let filled = [49, 99].map { predictions[$0]?.count ?? 0 }
        try UnderLoad.check(filled.min()! < 2, "predictions after frames 49 and 99: \(filled)", load: load)
        #expect(filled[0] >= 2, "the gap: \(predictions[49] ?? [])")
        #expect(filled[1] >= 2, "after the last frame: \(predictions[99] ?? [])")
    }
}
