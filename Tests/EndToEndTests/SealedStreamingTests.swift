import Foundation
import Mouse3DCore
import Mouse3DLinux
import Testing

/// A receiver and a sender on this machine with their own configuration directories, as two
/// machines would have.
struct LoopbackPairing {
    var receiverHome = Mouse3DProcess.makeConfigHome()
    var senderHome = Mouse3DProcess.makeConfigHome()

    /// Both sides new, or a new sender for an existing receiver's home.
    init(receiverHome: String? = nil) {
        if let receiverHome { self.receiverHome = receiverHome }
    }

    /// Runs `mouse3d pair` on the receiver side and `mouse3d pair HOST CODE` on the sender side.
    /// Returns both processes' results.
    @discardableResult
    func pair(streamPort: Int, code override: String? = nil) throws -> (
        receiver: (Int32, String, String), sender: (status: Int32, output: String, errors: String)
    ) {
        let waiting = try Mouse3DProcess(
            ["pair", "--listen", "127.0.0.1:0", "--stream-port", "\(streamPort)", "--timeout", "30"],
            configHome: receiverHome)
        #expect(
            waiting.waitForOutput(containing: "pairing on"), "pair did not start: \(waiting.output) \(waiting.errors)")
        let lines = waiting.output.split(separator: "\n")
        let codeLine = try #require(lines.first { $0.hasPrefix("pairing code: ") })
        let code = String(codeLine.dropFirst("pairing code: ".count).prefix(9))
        let pairLine = try #require(lines.first { $0.contains("pairing on") })
        let port = try #require(pairLine.split(separator: ":").last.flatMap { Int($0) })
        let sender = try runMouse3D(["pair", "127.0.0.1:\(port)", override ?? code], configHome: senderHome)
        let status = waiting.waitForExit(seconds: 10)
        return ((status, waiting.output, waiting.errors), sender)
    }

    /// A key file's path in `home`, in `folder` (senders, receivers), and its secret.
    func keyFiles(_ home: String, _ folder: String) -> [String] {
        let dir = home + "/mouse3d/" + folder
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".key") }.map {
            dir + "/" + $0
        }
    }
}

@Suite("Pairing and sealed streams between real processes", .serialized)
struct SealedStreamingTests {
    @Test("Paired over loopback, the sample arrives sealed, bit for bit, in order, none lost; key files are 0600")
    func sealedEndToEnd() throws {
        let p = LoopbackPairing()
        let receiver = try Mouse3DProcess(
            ["receive", "--listen", "127.0.0.1:0", "--print", "--format", "jsonl", "--stats"],
            configHome: p.receiverHome)
        let port = try receiver.listeningPort()
        let (r, s) = try p.pair(streamPort: port)
        #expect(r.0 == 0 && s.status == 0, "pairing failed: \(r) \(s)")
        #expect(
            receiver.waitForError(containing: "added: accepting its frames"),
            "a running receiver picks the pairing up: \(receiver.errors)")
        let sender = try runMouse3D(
            ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "2"], configHome: p.senderHome)
        #expect(sender.status == 0, "sender: \(sender.errors)")
        #expect(sender.errors.contains("sealed stream"))
        #expect(waitUntilRead(port: port) == 0, "the kernel dropped none")
        #expect(receiver.terminate() == 0)
        // The session's state, stored while it ran (its store thread keeps a temporary file per
        // state for the next store), is all that is left at a clean exit: no temporary.
        let senders = p.receiverHome + "/mouse3d/senders"
        let left = try FileManager.default.contentsOfDirectory(atPath: senders)
        #expect(left.contains { $0.hasSuffix(".state") } && !left.contains { $0.contains(".tmp-") }, "\(left)")
        let streaming = StreamingTests()
        let expected = try streaming.replayFrames()
        let received = try streaming.receivedFrames(receiver.output)
        #expect(received.count == expected.count && received.map(\.seq) == Array(0..<expected.count))
        #expect(
            zip(received.map(\.frame), expected).allSatisfy {
                $0.roll.bitPattern == $1.roll.bitPattern && $0.yaw.bitPattern == $1.yaw.bitPattern
            })

        // Keys are 0600 and nothing secret reaches any output.
        let files =
            p.keyFiles(p.receiverHome, "senders") + p.keyFiles(p.senderHome, "receivers")
            + [p.receiverHome + "/mouse3d/identity.key", p.senderHome + "/mouse3d/identity.key"]
        #expect(files.count == 4)
        for file in files {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for key in ["secret", "private_key"] {
                guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("\(key) = ") }) else {
                    continue
                }
                let value = String(line.split(separator: "\"")[1])
                for out in [
                    receiver.output, receiver.errors, sender.output, sender.errors, r.1, r.2, s.output, s.errors
                ] {
                    #expect(!out.contains(value), "a secret appeared in output")
                }
            }
        }
    }

    @Test("A wrong code: both sides fail with a message and store nothing")
    func wrongCode() throws {
        let p = LoopbackPairing()
        let (r, s) = try p.pair(streamPort: 1, code: "0000-0000")
        #expect(r.0 == 1 && r.2.contains("used a wrong code"), "receiver: \(r)")
        #expect(s.status == 1 && s.errors.contains("wrong code"), "sender: \(s)")
        #expect(p.keyFiles(p.receiverHome, "senders").isEmpty && p.keyFiles(p.senderHome, "receivers").isEmpty)
    }

    /// A name as an attacker would choose it: a window title (OSC 0 ... BEL), a colour (CSI 31 m), a
    /// C1 CSI, a carriage return hiding what came before, DEL, and a line of its own.
    static let hostileName = "evil\u{1B}]0;pwned\u{07}\u{1B}[31mred\u{9B}2J\rfake\u{7F}\nline"

    /// Control characters other than the newlines that end lines: C0, DEL and C1.
    static func controls(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { ($0 < 0x20 && $0 != 0x0A) || (0x7F...0x9F).contains($0) }
    }

    /// Writes an identity named `name` into `home` (as a machine whose host name an attacker chose would have).
    static func writeIdentity(_ home: String, name: String) throws {
        let folder = home + "/mouse3d"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        // TOML's escapes carry the control characters into the name (a raw one makes the file invalid).
        let escapedForFile = name.unicodeScalars.map { c in
            c.value < 0x20 || c.value == 0x7F ? String(format: "\\u%04X", c.value) : String(c)
        }.joined()
        let path = folder + "/identity.key"
        try "name = \"\(escapedForFile)\"\nprivate_key = \"\(key)\"\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    @Test(
        "Names with C0 and C1 control characters (a wrong code's, a paired peer's) come out of pair, peers and the logs escaped"
    )
    func hostileNames() throws {
        let p = LoopbackPairing()
        try Self.writeIdentity(p.senderHome, name: Self.hostileName)
        try Self.writeIdentity(p.receiverHome, name: "receiver " + Self.hostileName)
        // A wrong code: the receiver's `pair` names the sender that tried.
        let (wrongR, wrongS) = try p.pair(streamPort: 1, code: "0000-0000")
        #expect(
            wrongR.2.contains("used a wrong code") && wrongR.2.contains("evil\\x1b]0;pwned\\x07"),
            "receiver: \(wrongR.2)")
        var outputs = [wrongR.1, wrongR.2, wrongS.output, wrongS.errors]
        // Paired: both sides print the other's name; the list, a running receiver and `peers` too.
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print"], configHome: p.receiverHome)
        defer { _ = receiver.terminate() }
        let port = try receiver.listeningPort()
        let (r, s) = try p.pair(streamPort: port)
        #expect(r.0 == 0 && s.status == 0, "pairing failed: \(r) \(s)")
        #expect(receiver.waitForError(containing: "added: accepting its frames"), "\(receiver.errors)")
        let sender = try runMouse3D(
            ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "20"], configHome: p.senderHome)
        let listed = try runMouse3D(["pair", "--list"], configHome: p.receiverHome)
        let peers = try runMouse3D(["peers", "--timeout", "1"], configHome: p.senderHome)
        let peersJSON = try runMouse3D(["peers", "--json", "--timeout", "1"], configHome: p.senderHome)
        waitUntilRead(port: port)
        #expect(receiver.terminate() == 0)
        #expect(r.1.contains("paired with sender 'evil\\x1b]0;pwned"), "\(r.1)")
        #expect(listed.output.contains("evil\\x1b]0;pwned"), "\(listed.output)")
        #expect(peers.output.contains("paired as 'receiver evil\\x1b]0;pwned"), "\(peers.output) \(peers.errors)")
        outputs += [
            r.1, r.2, s.output, s.errors, sender.output, sender.errors, listed.output, listed.errors, peers.output,
            peers.errors,
            peersJSON.output, peersJSON.errors, receiver.errors
        ]
        for (i, out) in outputs.enumerated() {
            #expect(
                Self.controls(out).isEmpty,
                "output \(i) holds control characters \(Self.controls(out)): \(out.debugDescription.prefix(400))")
        }
        #expect(!outputs.joined().contains("\nline'"), "a name forged a line of its own")
    }

    @Test(
        "A session state that cannot be stored: its frames are refused, and the receiver neither writes nor says so per datagram"
    )
    func storeFailureBounded() throws {
        let p = LoopbackPairing()
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print"], configHome: p.receiverHome)
        defer { _ = receiver.terminate() }
        let port = try receiver.listeningPort()
        try p.pair(streamPort: port)
        #expect(receiver.waitForError(containing: "added: accepting its frames"), "\(receiver.errors)")
        // A folder where the sender's state file goes: every store fails (even as root, unlike chmod).
        let key = try #require(p.keyFiles(p.receiverHome, "senders").first)
        let state = String(key.dropLast(".key".count)) + ".state"
        try? FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let sender = try runMouse3D(
            ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "10"], configHome: p.senderHome)
        #expect(sender.status == 0, "\(sender.errors)")
        waitUntilRead(port: port)
        #expect(receiver.terminate() == 0)
        let said = receiver.errors.split(separator: "\n").filter { $0.contains("cannot store the session") }
        print(
            "store failing: \(said.count) lines for 1201 datagrams at 1 kHz; \(receiver.output.split(separator: "\n").count) frames output"
        )
        #expect(receiver.output.isEmpty, "nothing is accepted that could not be stored")
        #expect(!said.isEmpty && said.count <= 3, "\(said.count) lines: \(said.prefix(3))")
    }

    @Test("Unpaired and unsealed senders inject nothing; the receiver says who tried")
    func unpairedRefused() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print"], configHome: home)
        let port = try receiver.listeningPort()
        let plain = try runMouse3D([
            "send", "--insecure", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "20", "--to",
            "127.0.0.1:\(port)"
        ])
        #expect(plain.status == 0 && plain.errors.contains("warning: --insecure"))
        let unpaired = try runMouse3D([
            "send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--to", "127.0.0.1:\(port)"
        ])
        #expect(unpaired.status != 0 && unpaired.errors.contains("no paired receivers"), "\(unpaired.errors)")
        #expect(waitUntilRead(port: port) == 0, "the kernel dropped none")
        #expect(receiver.terminate() == 0)
        #expect(receiver.output.isEmpty, "injected: \(receiver.output.prefix(200))")
        #expect(
            receiver.errors.contains("refused 1 datagram from 127.0.0.1:")
                && receiver.errors.contains("unsealed frames"), "\(receiver.errors)")
        let summary = try ReceiverSummary(receiver.errors)
        #expect(summary.frames == 0 && summary.dropped == 1201)
    }

    @Test("--insecure and --raw listen on loopback by default and warn; sealed listens everywhere")
    func insecureDefaults() throws {
        for flag in ["--insecure", "--raw"] {
            // The configured port (not 24930 itself, which a running mouse3d or doctor's probe may hold).
            let port = try freeUDPPort()
            let r = try Mouse3DProcess(["receive", flag, "--print"], environment: ["MOUSE3D_NETWORK_PORT": "\(port)"])
            #expect(r.waitForError(containing: "warning:"), "\(r.errors)")
            #expect(r.errors.contains("listening on 127.0.0.1:\(port)"), "\(r.errors)")
            _ = r.terminate()
        }
    }

    @Test("Revocation takes effect at once: the running receiver refuses the next frame")
    func revocation() throws {
        let p = LoopbackPairing()
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print"], configHome: p.receiverHome)
        let port = try receiver.listeningPort()
        try p.pair(streamPort: port)
        #expect(receiver.waitForError(containing: "added"))
        let sender = try Mouse3DProcess(
            ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--loop"], configHome: p.senderHome)
        #expect(receiver.waitForError(containing: "new stream", seconds: 20))
        let fingerprint = try #require(
            receiver.errors.split(separator: "\n").first { $0.contains("added") }?
                .split(separator: "(").last?.prefix(19))
        let revoked = try runMouse3D(["pair", "--revoke", String(fingerprint)], configHome: p.receiverHome)
        #expect(revoked.status == 0 && revoked.output.contains("revoked sender"), "\(revoked)")
        let linesAtRevocation = receiver.output.split(separator: "\n").count
        #expect(receiver.waitForError(containing: "revoked: its frames are refused"))
        // What was printed before the revocation may still be on its way through the pipe: wait until
        // the output has stood still for 250 ms (at most 3 s; a 200 Hz stream never stands still).
        var linesSoonAfter = receiver.output.split(separator: "\n").count
        var stillSince = Date()
        let giveUp = Date().addingTimeInterval(3)
        while Date().timeIntervalSince(stillSince) < 0.25 && Date() < giveUp {
            Thread.sleep(forTimeInterval: 0.05)
            let now = receiver.output.split(separator: "\n").count
            if now != linesSoonAfter { (linesSoonAfter, stillSince) = (now, Date()) }
        }
        // The sender went on: its frames after the revocation reached the receiver and were refused
        // (it says so), and the socket's queue has been read since; only then is "no new line" a
        // finding rather than a guess about how long to wait.
        #expect(receiver.waitForError(containing: "is not paired here"))
        #expect(waitUntilRead(port: port) != nil, "the receiver read its queue")
        let linesLater = receiver.output.split(separator: "\n").count
        #expect(linesAtRevocation > 0)
        #expect(linesLater == linesSoonAfter, "frames kept coming after revocation: \(linesSoonAfter) -> \(linesLater)")
        print(
            "revocation: \(linesSoonAfter - linesAtRevocation) frames printed after the revoke command's exit, until the output stood still (200 Hz stream)"
        )
        _ = sender.terminate()
        #expect(receiver.terminate() == 0)
    }

    @Test("Key files others can read are refused with the chmod that fixes them")
    func permissions() throws {
        let p = LoopbackPairing()
        try p.pair(streamPort: 9)
        let key = try #require(p.keyFiles(p.receiverHome, "senders").first)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print"], configHome: p.receiverHome)
        #expect(receiver.waitForError(containing: "listening on"))
        #expect(
            receiver.errors.contains("permissions 644") && receiver.errors.contains("chmod 600 \(key)")
                && receiver.errors.contains("ignored"), "\(receiver.errors)")
        #expect(receiver.errors.contains("no paired senders yet"))
        _ = receiver.terminate()
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o640], ofItemAtPath: p.receiverHome + "/mouse3d/identity.key")
        let refused = try runMouse3D(["receive", "--print"], configHome: p.receiverHome)
        #expect(refused.status != 0 && refused.errors.contains("identity.key: permissions 640"), "\(refused.errors)")
    }

    @Test("A paired stream keeps flowing through a flood of 100,000 junk datagrams a second from another local address")
    func flood() throws { try CPUHeavy.run { try UnderLoad.measure { try floodAlone() } } }

    func floodAlone() throws {
        let p = LoopbackPairing()
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print"], configHome: p.receiverHome)
        let port = try receiver.listeningPort()
        try p.pair(streamPort: port)
        #expect(receiver.waitForError(containing: "added"))
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let flooderAddress = try SocketAddress.resolve("127.0.0.2:0", defaultPort: 0, passive: false)
        let stop = Flag()
        let flooded = Counter()
        let floodNanoseconds = Counter()
        let thread = Thread {
            guard let flooder = try? UDPSocket(family: AF_INET, blocking: true),
                (try? flooder.bind(to: flooderAddress)) != nil
            else { return }
            // Sealed-looking junk: the magic, version and kind 1, random sender ids and bytes.
            var junk = [UInt8](repeating: 0, count: 72)
            var random = SplitMix64(seed: 99)
            let start = MonotonicClock.nanoseconds()
            var sent: UInt64 = 0
            while !stop.isSet {
                let due = (MonotonicClock.nanoseconds() - start) / 10_000  // 100,000 per second
                var batch = 0
                while sent < due && batch < 1000 {
                    junk.withUnsafeMutableBytes { raw in
                        for i in 0..<9 { raw.storeBytes(of: random.next(), toByteOffset: i * 8, as: UInt64.self) }
                    }
                    junk[0] = 0x4D
                    junk[1] = 0x33
                    junk[2] = 1
                    junk[3] = 1
                    _ = try? junk.withUnsafeBytes {
                        try flooder.send(UnsafeRawBufferPointer(rebasing: $0[0..<68]), to: target)
                    }
                    sent += 1
                    batch += 1
                }
                flooded.set(sent)
                floodNanoseconds.set(MonotonicClock.nanoseconds() - start)
                if sent >= due { usleep(200) }
            }
        }
        let load = MachineLoad(children: [receiver.process.processIdentifier])
        thread.start()
        // The stream starts once the flood is under way (10,000 sent), not after a guess.
        let flooding = MonotonicClock.nanoseconds() + 20_000_000_000
        while flooded.value < 10_000 && MonotonicClock.nanoseconds() < flooding { usleep(10_000) }
        try #require(flooded.value >= 10_000, "the flood did not get under way in 20 s: \(flooded.value) sent")
        let sender = try runMouse3D(
            ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "1"], configHome: p.senderHome)
        stop.set()
        waitUntilRead(port: port)
        #expect(sender.status == 0, "\(sender.errors)")
        #expect(receiver.terminate() == 0)
        let summary = try ReceiverSummary(receiver.errors)
        let rate = Double(flooded.value) * 1e9 / Double(max(floodNanoseconds.value, 1))
        print(
            "flood: \(flooded.value) junk datagrams (~\(Int(rate)) /s); receiver: frames \(summary.frames) of 1201, dropped \(summary.dropped), lost \(summary.lost)"
        )
        try UnderLoad.check(rate <= 90_000, "the flood reached only \(Int(rate))/s", load: load)
        try UnderLoad.check(summary.frames < 1081, "the stream kept \(summary.frames) of 1201 frames", load: load)
        #expect(rate > 90_000, "the flood must reach ~100k/s for the test to mean anything")
        // Alone, 1201 of 1201 arrive; with the other suites' processes competing for two cores, the
        // kernel's socket buffer can overflow while the receiver waits for a CPU (1048 seen).
        #expect(summary.frames >= 1081, "at least 90% of the paired stream got through: \(summary.frames)")
        #expect(!receiver.errors.contains("lost (no frames for 500 ms)"), "the paired stream never stalled")
        #expect(receiver.errors.contains("from 127.0.0.2:"), "the flooding source is named")
    }
}

/// A flag one thread sets and another reads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// A number one thread sets and another reads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: UInt64 = 0
    var value: UInt64 { lock.withLock { stored } }
    func set(_ v: UInt64) { lock.withLock { stored = v } }
}
