import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// The machine's floor for `bench stream`: the least a 1 kHz UDP sender and receiver can do here.
public enum FloorPeer {
    /// Sleeps 1 ms (clock_nanosleep), then sends a datagram stamped with the clock; `count` times.
    public static func send(toLoopbackPort port: Int, count: Int) throws {
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let socket = try UDPSocket(family: target.family)
        var deadline = MonotonicClock.nanoseconds()
        var bytes = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
        for _ in 0..<count {
            deadline += 1_000_000
            MonotonicClock.sleep(untilNanoseconds: deadline)
            withUnsafeBytes(of: MonotonicClock.nanoseconds().littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
            _ = try bytes.withUnsafeBytes { try socket.send($0, to: target) }
        }
    }

    /// Receives `count` datagrams in a blocking recvfrom (or until none came for a second), recording
    /// send→receive latency of those received `warmUp` seconds or more after the first; says its
    /// port first and the latency at the end, on standard error. Its receive buffer is as large as
    /// `mouse3d receive` asks for.
    public static func receive(onLoopbackPort port: Int, count: Int, warmUp: Double = 0) throws {
        let address = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let socket = try UDPSocket(family: address.family, blocking: true)
        try socket.bind(to: address)
        try? socket.setReceiveBufferSize(4 << 20)
        try socket.setReceiveTimeout(nanoseconds: 1_000_000_000)
        StandardError.write("listening on \(try socket.localAddress())\n")
        var recorder = LatencyRecorder(warmUpNanoseconds: UInt64(max(0, warmUp) * 1e9))
        var buffer = [UInt8](repeating: 0, count: 64)
        for _ in 0..<count {
            guard let (length, _) = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) else { break }
            guard length >= 8 else { continue }
            let now = MonotonicClock.nanoseconds()
            guard recorder.counts(arrivedAt: now) else { continue }
            let sent = buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            recorder.record(nanoseconds: now &- sent)
        }
        StandardError.write("latency send→receive: \(recorder.summary)\n")
    }

    /// The event loop's own floor: what `mouse3d receive` does for a datagram before any work of its
    /// own. The project's ``EventLoop`` wakes on the socket, one `recvmmsg` reads what waits (the
    /// receiver's batch of 64), the latency of each is recorded, and one `write` per wake-up puts
    /// out their first 40 bytes as lines (the receiver's one write of its printed lines). Nothing
    /// is decoded, checked or tracked: the receiver's CPU above this is its work, below it the loop.
    /// Ends after `count` datagrams or a second without one; says its port and the latency on
    /// standard error, as ``receive(onLoopbackPort:count:warmUp:)``.
    public static func receiveOnLoop(onLoopbackPort port: Int, count: Int, warmUp: Double = 0) throws {
        let address = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let socket = try UDPSocket(family: address.family)
        try socket.bind(to: address)
        try? socket.setReceiveBufferSize(4 << 20)
        StandardError.write("listening on \(try socket.localAddress())\n")
        let loop = try EventLoop()
        let batch = DatagramBatch(capacity: 64, bufferSize: 64)
        let output = BufferedOutput()
        var recorder = LatencyRecorder(warmUpNanoseconds: UInt64(max(0, warmUp) * 1e9))
        var received = 0
        var last = MonotonicClock.nanoseconds()
        _ = loop.watch(socket.descriptor) {
            let n = try socket.receive(into: batch)
            guard n > 0 else { return }
            let now = MonotonicClock.nanoseconds()
            last = now
            for i in 0..<n where batch.length(i) >= 8 {
                let bytes = batch.bytes(i)
                try output.writeLine { $0.append(contentsOf: bytes.prefix(40)) }
                guard recorder.counts(arrivedAt: now) else { continue }
                recorder.record(nanoseconds: now &- bytes.loadUnaligned(as: UInt64.self).littleEndian)
            }
            try output.flush()
            received += n
            if received >= count { loop.stop() }
        }
        _ = loop.timer(deadline: { last + 1_000_000_000 }) { _ in loop.stop() }
        _ = try loop.run()
        StandardError.write("latency send→receive: \(recorder.summary)\n")
    }
}
