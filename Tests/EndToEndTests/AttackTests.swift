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
