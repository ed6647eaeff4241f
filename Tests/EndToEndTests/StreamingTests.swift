import Foundation
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("Streaming between real processes", .serialized)
struct StreamingTests {
    /// The attitudes `mouse3d replay` computes for the sample, as the float32 frames a sender makes.
    func replayFrames() throws -> [AttitudeFrame] {
        let replay = try runMouse3D(["replay", Mouse3DProcess.sampleLog, "--output", "jsonl"])
        #expect(replay.status == 0)
        return try replay.output.split(separator: "\n").map { line in
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            func angle(_ key: String) throws -> Float { Float(try #require(json[key] as? Double)) }
            return AttitudeFrame(roll: try angle("roll"), pitch: try angle("pitch"), yaw: try angle("yaw"))
        }
    }

    /// The frames a receiver printed as jsonl, with their sequence numbers.
    func receivedFrames(_ output: String) throws -> [(seq: Int, frame: AttitudeFrame)] {
        try output.split(separator: "\n").map { line in
            // Parse the angles from their text, so the float32 bits are compared, not a double detour.
            func field(_ key: String) throws -> Substring {
                let r = try #require(line.range(of: "\"\(key)\":"))
                return line[r.upperBound...].prefix { $0 != "," && $0 != "}" }
            }
            let frame = AttitudeFrame(
                roll: try #require(Float(try field("roll"))), pitch: try #require(Float(try field("pitch"))),
                yaw: try #require(Float(try field("yaw"))))
            #expect(line.contains("\"sender\":"))
            return (try #require(Int(try field("seq"))), frame)
        }
    }

    @Test(
        "The sample log streamed at speed 1 arrives equal to replay, bit for bit, in order, none lost",
        arguments: ["127.0.0.1", "[::1]"])
    func endToEnd(host: String) throws {
        let expected = try replayFrames()
        let receiver = try Mouse3DProcess([
            "receive", "--insecure", "--listen", "\(host):0", "--print", "--format", "jsonl"
        ])
        let port = try receiver.listeningPort()
        let sender = try runMouse3D([
            "send", "--insecure", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--to", "\(host):\(port)",
            "--speed", "1"
        ])
        #expect(sender.status == 0, "sender: \(sender.errors)")
        #expect(waitUntilRead(port: port) == 0, "the kernel dropped none")
        #expect(receiver.terminate() == 0, "receiver ends cleanly on SIGTERM")
        let received = try receivedFrames(receiver.output)
        #expect(received.count == expected.count, "\(received.count) of \(expected.count) frames")
        #expect(received.map(\.seq) == Array(0..<received.count))
        for (i, (got, want)) in zip(received.map(\.frame), expected).enumerated() {
            if got.roll.bitPattern != want.roll.bitPattern || got.pitch.bitPattern != want.pitch.bitPattern
                || got.yaw.bitPattern != want.yaw.bitPattern
            {
                Issue.record("frame \(i): got \(got), replay gives \(want)")
                break
            }
        }
        let summary = try ReceiverSummary(receiver.errors)
        #expect(summary.frames == expected.count && summary.lost == 0 && summary.dropped == 0)
    }

    @Test("Thousands of random datagrams (0–1500 bytes) are all dropped and counted; nothing printed")
    func garbage() throws {
        let receiver = try Mouse3DProcess([
            "receive", "--insecure", "--listen", "127.0.0.1:0", "--print", "--format", "jsonl"
        ])
        let port = try receiver.listeningPort()
        let socket = try UDPSocket(family: AF_INET)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        var random = SplitMix64(seed: 4242)
        let count = 5000
        let valid = AttitudeDatagram(
            streamID: 1, sequence: 0, sentNanoseconds: 0, buttons: [], frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0)
        ).encoded
        for i in 0..<count {
            let size = Int(random.next() % 1501)
            var bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Every datagram is invalid by construction, for each reason in turn: random bytes (never
            // starting with the magic), a valid header of the wrong size, a wrong version, a wrong kind,
            // and a NaN, infinite or out-of-range angle.
            switch i % 6 {
            case 0: if size > 0 { bytes[0] = 0x00 }
            case 1:
                bytes = Array(valid.prefix(min(size, 39))) + (size > 40 ? bytes.suffix(size - 40) : [])
                if bytes.count == 40 { bytes.append(0) }
            case 2:
                bytes = valid
                bytes[2] = UInt8.random(in: 2...255)
            case 3:
                bytes = valid
                bytes[3] = UInt8.random(in: 1...255)
            case 4:
                bytes = valid
                bytes.replaceSubrange(28..<32, with: Float.nan.encodedBytes)
            default:
                bytes = valid
                bytes.replaceSubrange(32..<36, with: (i % 2 == 0 ? Float.infinity : 1.6).encodedBytes)
            }
            let outcome = try bytes.withUnsafeBytes { try socket.send($0, to: target) }
            #expect(outcome == .sent)
            if i % 100 == 99 { Thread.sleep(forTimeInterval: 0.002) }  // stay within the socket buffer
        }
        #expect(waitUntilRead(port: port) == 0, "the kernel dropped none (else the count below is short)")
        #expect(receiver.process.isRunning, "receiver survived")
        #expect(receiver.terminate() == 0)
        #expect(receiver.output.isEmpty, "printed: \(receiver.output.prefix(200))")
        let summary = try ReceiverSummary(receiver.errors)
        #expect(summary.dropped == count && summary.frames == 0)
    }

    @Test("One sender fans out to 8 receivers, each receiving every frame")
    func fanOut() throws {
        let receivers = try (0..<8).map { _ in
            try Mouse3DProcess(["receive", "--insecure", "--listen", "127.0.0.1:0", "--print", "--format", "jsonl"])
        }
        let ports = try receivers.map { try $0.listeningPort() }
        let sender = try runMouse3D(
            ["send", "--insecure", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "10"]
                + ports.flatMap { ["--to", "127.0.0.1:\($0)"] })
        #expect(sender.status == 0, "sender: \(sender.errors)")
        for (r, port) in zip(receivers, ports) {
            #expect(waitUntilRead(port: port) == 0, "the kernel dropped none")
            #expect(r.terminate() == 0)
            let summary = try ReceiverSummary(r.errors)
            #expect(summary.frames == 1201 && summary.lost == 0)
            #expect(r.output.split(separator: "\n").count == 1201)
        }
    }

    @Test("Nine receivers are refused with a clear message")
    func tooManyPeers() throws {
        let result = try runMouse3D(
            ["send", "--insecure", "--source", "replay:\(Mouse3DProcess.sampleLog)"]
                + (1...9).flatMap { ["--to", "127.0.0.1:\(30000 + $0)"] })
        #expect(result.status != 0)
        #expect(result.errors.contains("At most 8 receivers"))
    }

    @Test("The sender keeps going when nobody listens and ends cleanly on SIGTERM")
    func nobodyListening() throws {
        // A witness receiver beside the port nobody listens on: once it has printed more than two
        // passes of the 1201-frame log, the sender has sent that much to nobody too (a count, not a
        // guess at how long a busy machine needs).
        let witness = try Mouse3DProcess(["receive", "--insecure", "--listen", "127.0.0.1:0", "--print"])
        let witnessPort = try witness.listeningPort()
        let sender = try Mouse3DProcess([
            "send", "--insecure", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--to", "127.0.0.1:9",
            "--to", "127.0.0.1:\(witnessPort)", "--loop", "--speed", "20"
        ])
        #expect(witness.waitForOutputLines(atLeast: 2500, seconds: 30) >= 2500, "the sender stalled: \(sender.errors)")
        _ = witness.terminate()
        #expect(sender.process.isRunning)
        #expect(sender.terminate() == 0)
        #expect(sender.errors.contains("stopping on SIGTERM"))
    }

    @Test(
        "A stream from each of 500 source addresses: every frame printed, at most 64 streams kept, and the log stays short"
    )
    func manyStreamsShortLog() throws {
        let receiver = try Mouse3DProcess(["receive", "--insecure", "--listen", "127.0.0.1:0", "--print"])
        let port = try receiver.listeningPort()
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        for i in 0..<500 {
            let socket = try UDPSocket(family: AF_INET, blocking: true)
            try socket.bind(to: SocketAddress(addressBytes: [127, 0, UInt8(1 + i / 250), UInt8(1 + i % 250)], port: 0)!)
            let d = AttitudeDatagram(
                streamID: 7, sequence: 0, sentNanoseconds: 0, buttons: [],
                frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0))
            _ = try d.encoded.withUnsafeBytes { try socket.send($0, to: target) }
        }
        #expect(waitUntilRead(port: port) == 0, "the kernel dropped none")
        #expect(receiver.terminate() == 0)
        let summary = try ReceiverSummary(receiver.errors)
        let lines = receiver.errors.split(separator: "\n")
        print(
            "500 streams: \(summary.frames) frames printed, \(lines.count) log lines; \(lines.last { $0.contains("not shown") } ?? "")"
        )
        #expect(summary.frames == 500 && receiver.output.split(separator: "\n").count == 500)
        #expect(lines.count < 40, "the log stays short: \(lines.count) lines")
        #expect(
            lines.contains { $0.contains("436 streams pushed out by newer ones") },
            "drops are counted: \(lines.suffix(3))")
    }

    @Test("A receiver reports a sender lost after 500 ms of silence and back when it resumes")
    func lostAndBack() throws {
        let receiver = try Mouse3DProcess(["receive", "--insecure", "--listen", "127.0.0.1:0", "--print"])
        let port = try receiver.listeningPort()
        let socket = try UDPSocket(family: AF_INET)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        func send(_ seq: UInt64) throws {
            let d = AttitudeDatagram(
                streamID: 7, sequence: seq, sentNanoseconds: 0, buttons: [],
                frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0))
            _ = try d.encoded.withUnsafeBytes { try socket.send($0, to: target) }
        }
        let sentAt = Date()
        try send(0)
        #expect(receiver.waitForError(containing: "new stream", seconds: 5))
        // Not before its 500 ms: the line is seen no earlier than it is written, so a premature
        // "lost" shows as seen too early (load only delays the seeing, so it cannot fail wrongly).
        #expect(receiver.waitForError(containing: "lost (no frames for 500 ms)", seconds: 5))
        let seenAfter = Date().timeIntervalSince(sentAt)
        #expect(seenAfter >= 0.5, "lost reported \(seenAfter) s after the only frame, before its 500 ms")
        try send(1)
        #expect(receiver.waitForError(containing: ": back", seconds: 2))
        try send(1)  // a duplicate: stale, dropped
        #expect(waitUntilRead(port: port) == 0, "the receiver read the duplicate")
        #expect(receiver.terminate() == 0)
        let summary = try ReceiverSummary(receiver.errors)
        #expect(summary.frames == 2 && summary.reordered == 1)
    }
}

extension Float {
    /// The four little-endian bytes of this float.
    var encodedBytes: [UInt8] { withUnsafeBytes(of: bitPattern.littleEndian) { Array($0) } }
}
