import ArgumentParser
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// The machine's floor for `bench stream`: the least a 1 kHz UDP sender and receiver can do here.
    struct BenchFloorPeer: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "floor-peer",
            abstract: "Internal to bench stream: a minimal UDP sender or receiver, to measure the machine's floor.",
            shouldDisplay: false)

        enum Role: String, ExpressibleByArgument { case sender, receiver }

        @Option(help: "sender (sleep 1 ms with clock_nanosleep, sendto) or receiver (blocking recvfrom).")
        var role: Role

        @Option(help: "Loopback UDP port (the receiver prints its own when given 0).")
        var port: Int = 0

        @Option(help: "Datagrams to send or receive.")
        var count: Int = 10_000

        func run() throws {
            switch role {
            case .sender:
                let socket = try UDPSocket(family: AF_INET)
                let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
                var deadline = MonotonicClock.nanoseconds()
                var bytes = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
                for _ in 0..<count {
                    deadline += 1_000_000
                    MonotonicClock.sleep(untilNanoseconds: deadline)
                    withUnsafeBytes(of: MonotonicClock.nanoseconds().littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
                    _ = try bytes.withUnsafeBytes { try socket.send($0, to: target) }
                }
            case .receiver:
                let socket = try UDPSocket(family: AF_INET, blocking: true)
                try socket.bind(to: try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false))
                StandardError.write("listening on \(try socket.localAddress())\n")
                var recorder = LatencyRecorder()
                var buffer = [UInt8](repeating: 0, count: 64)
                for _ in 0..<count {
                    guard let (length, _) = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }), length >= 8 else { continue }
                    let now = MonotonicClock.nanoseconds()
                    let sent = buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    recorder.record(nanoseconds: now &- sent)
                }
                StandardError.write("latency send→receive: \(recorder.summary)\n")
            }
        }
    }
}
