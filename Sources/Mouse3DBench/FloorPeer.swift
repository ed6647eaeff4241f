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
}
