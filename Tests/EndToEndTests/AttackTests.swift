import Foundation
import Mouse3DCore
import Mouse3DLinux
import Testing

/// Datagrams arriving at a loopback port, collected on a thread of their own (a stand-in receiver
/// that keeps everything, as an eavesdropper on the wire would).
final class WireCapture: @unchecked Sendable {
    // @unchecked: `datagrams` is guarded by `lock`; the socket is read by the capture thread only.
    let socket: UDPSocket
    let address: SocketAddress
    private let lock = NSLock()
    private var captured: [[UInt8]] = []
    private let stopped = Flag()

    init() throws {
        socket = try UDPSocket(family: AF_INET)
        try socket.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        address = try socket.localAddress()
        // The socket is read by this thread alone from here on.
        nonisolated(unsafe) let socket = socket
        let thread = Thread { [lock, stopped] in
            var buffer = [UInt8](repeating: 0, count: 2048)
            while !stopped.isSet {
                guard (try? EventLoop.waitUntilReadable([socket.descriptor], timeoutNanoseconds: 20_000_000)) == true else { continue }
                while let (length, _) = try? buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                    let datagram = Array(buffer[0..<min(length, buffer.count)])
                    lock.withLock { self.captured.append(datagram) }
                }
            }
        }
        thread.start()
    }

    var datagrams: [[UInt8]] { lock.withLock { captured } }

    func stop() { stopped.set() }

    deinit { stopped.set() }
}

/// The clear fields of a sealed datagram.
struct SealedHeader: Hashable {
    var sender: [UInt8], epoch: UInt32, stream: UInt32, sequence: UInt64

    init?(_ d: [UInt8]) {
        guard d.count == SealedDatagramLayout.byteCount, d[0] == 0x4D, d[1] == 0x33, d[3] == 1 || d[3] == 2 else { return nil }
        stream = d.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
        sequence = d.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        sender = Array(d[16..<24])
        epoch = d.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self)) }
    }
}

@Suite("Sealed streams under attack, between real processes", .serialized)
struct AttackTests {
    /// A sender paired with a receiver whose stream port is `capture`'s.
    func pairedSender(streamingTo capture: WireCapture) throws -> LoopbackPairing {
        let p = LoopbackPairing()
        let (r, s) = try p.pair(streamPort: Int(capture.address.port))
        #expect(r.0 == 0 && s.status == 0, "pairing failed: \(r) \(s)")
        return p
    }

    @Test("Two senders of one identity started together: one clear error, and no (sender, epoch, sequence) twice on the wire")
    func concurrentSenders() throws {
        let capture = try WireCapture()
        let p = try pairedSender(streamingTo: capture)
        let arguments = ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "4"]
        let first = try Mouse3DProcess(arguments, configHome: p.senderHome)
        let second = try Mouse3DProcess(arguments, configHome: p.senderHome)
        let statuses = [first.waitForExit(seconds: 30), second.waitForExit(seconds: 30)]
        Thread.sleep(forTimeInterval: 0.2)
        capture.stop()
        let refused = [first, second].filter { $0.errors.contains("another mouse3d process is streaming to") }
        #expect(statuses.sorted() == [0, 1], "one runs, one is refused: \(statuses) \(first.errors) \(second.errors)")
        #expect(refused.count == 1, "exactly one clear error")
        let headers = capture.datagrams.compactMap(SealedHeader.init)
        #expect(headers.count == 1201, "the running sender's whole log: \(headers.count)")
        let nonces = headers.map { [$0.sender.description, "\($0.epoch)", "\($0.sequence)"] }
        #expect(Set(nonces).count == nonces.count, "a (sender, epoch, sequence) was sent twice")
    }

    @Test("A deleted session state never brings an epoch back: the next run refuses with what to do, and a new pairing starts clean")
    func deletedState() throws {
        let capture = try WireCapture()
        let p = try pairedSender(streamingTo: capture)
        let arguments = ["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "max"]
        let run1 = try runMouse3D(arguments, configHome: p.senderHome)
        #expect(run1.status == 0, "\(run1.errors)")
        let folder = p.senderHome + "/mouse3d/receivers/"
        let states = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".state") }
        #expect(states.count == 1)
        for state in states { try FileManager.default.removeItem(atPath: folder + state) }
        let run2 = try runMouse3D(arguments, configHome: p.senderHome)
        #expect(run2.status == 1 && run2.errors.contains("is missing, so a new session could repeat an old one; pair again"), "\(run2.errors)")
        // Pairing again (a new secret) starts a new key space.
        try p.pair(streamPort: Int(capture.address.port))
        let run3 = try runMouse3D(arguments, configHome: p.senderHome)
        #expect(run3.status == 0, "\(run3.errors)")
        Thread.sleep(forTimeInterval: 0.2)
        capture.stop()
        let headers = capture.datagrams.compactMap(SealedHeader.init)
        #expect(headers.count == 2 * 1201, "run 1 and run 3 only")
        let keysAndNonces = headers.map { "\($0.epoch) \($0.stream) \($0.sequence)" }
        #expect(Set(keysAndNonces).count == keysAndNonces.count, "a key and nonce were used twice")
    }
}

@Suite("Replays of captured sessions between real processes", .serialized)
struct ReplayAttackTests {
    /// A sealed session of the sample log, captured on its way to a receiver of `p`.
    func capturedSession(_ p: LoopbackPairing, capture: WireCapture) throws -> [[UInt8]] {
        let before = capture.datagrams.count
        let run = try runMouse3D(["send", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "max"], configHome: p.senderHome)
        #expect(run.status == 0, "\(run.errors)")
        let end = Date().addingTimeInterval(5)
        while capture.datagrams[before...].filter({ SealedHeader($0) != nil }).count < 1201 && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        // Sealed frames only (the sender's link probes travel to the same port).
        return capture.datagrams[before...].filter { SealedHeader($0) != nil }
    }

    /// Sends `datagrams` to `receiver` and returns how many frames it printed for them.
    func inject(_ datagrams: [[UInt8]], into receiver: Mouse3DProcess) throws -> Int {
        let port = try receiver.listeningPort()
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let socket = try UDPSocket(family: AF_INET, blocking: true)
        let printed = receiver.output.split(separator: "\n").count
        for (i, d) in datagrams.enumerated() {
            _ = try d.withUnsafeBytes { try socket.send($0, to: target) }
            if i % 64 == 63 { Thread.sleep(forTimeInterval: 0.002) }  // within the socket buffer
        }
        Thread.sleep(forTimeInterval: 0.5)
        return receiver.output.split(separator: "\n").count - printed
    }

    func startReceiver(_ p: LoopbackPairing) throws -> Mouse3DProcess {
        let receiver = try Mouse3DProcess(["receive", "--listen", "127.0.0.1:0", "--print", "--format", "jsonl"], configHome: p.receiverHome)
        _ = try receiver.listeningPort()
        return receiver
    }

    @Test("SIGKILL of the receiver, restart, re-injection of a captured session: 0 frames; a fresh session is accepted")
    func replayAfterCrash() throws {
        let capture = try WireCapture()
        let p = LoopbackPairing()
        try p.pair(streamPort: Int(capture.address.port))
        let session = try capturedSession(p, capture: capture)
        #expect(session.count == 1201)
        let first = try startReceiver(p)
        #expect(try inject(session, into: first) == 1201, "the genuine session is accepted once: \(first.errors)")
        kill(first.process.processIdentifier, SIGKILL)
        _ = first.waitForExit(seconds: 5)
        let second = try startReceiver(p)
        #expect(try inject(session, into: second) == 0, "a replay after the crash: \(second.errors)")
        #expect(try inject(Array(session.reversed()), into: second) == 0, "in any order")
        let fresh = try capturedSession(p, capture: capture)
        #expect(try inject(fresh, into: second) == 1201, "a new session of the same sender: \(second.errors)")
        #expect(second.terminate() == 0)
        let summary = try ReceiverSummary(second.errors)
        #expect(summary.frames == 1201 && summary.dropped == 2 * 1201, "\(second.errors)")
        capture.stop()
    }

    @Test("SIGHUP, also with a sender paired meanwhile, keeps the floors: re-injection gives 0 frames; a fresh session is accepted")
    func replayAfterReload() throws {
        let capture = try WireCapture()
        let p = LoopbackPairing()
        try p.pair(streamPort: Int(capture.address.port))
        let session = try capturedSession(p, capture: capture)
        let receiver = try startReceiver(p)
        #expect(try inject(session, into: receiver) == 1201)
        kill(receiver.process.processIdentifier, SIGHUP)
        #expect(receiver.waitForError(containing: "SIGHUP"), "\(receiver.errors)")
        #expect(try inject(session, into: receiver) == 0, "a replay after a reload")
        // Another sender paired while it runs: the peer set changes, the floors stay.
        let other = LoopbackPairing(receiverHome: p.receiverHome)
        try other.pair(streamPort: Int(capture.address.port))
        #expect(receiver.waitForError(containing: "added: accepting its frames"), "\(receiver.errors)")
        kill(receiver.process.processIdentifier, SIGHUP)
        #expect(try inject(session, into: receiver) == 0, "a replay after the peer set changed")
        let fresh = try capturedSession(p, capture: capture)
        #expect(try inject(fresh, into: receiver) == 1201, "a new session is still accepted")
        #expect(receiver.terminate() == 0)
        capture.stop()
    }
}
