import ArgumentParser
import Mouse3DBench
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// The machine's floor for `bench stream`: the least a 1 kHz UDP sender and receiver can do here.
    struct BenchFloorPeer: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "floor-peer",
            abstract: "Internal to bench stream: a minimal UDP sender or receiver, to measure the machine's floor.",
            shouldDisplay: false)

        enum Role: String, ExpressibleByArgument { case sender, receiver, loop }

        @Option(
            help:
                "sender (sleep 1 ms with clock_nanosleep, sendto), receiver (blocking recvfrom) or loop (the receiver's event loop: epoll, recvmmsg, one write a wake-up; no work)."
        )
        var role: Role

        @Option(help: "Loopback UDP port (the receiver prints its own when given 0).")
        var port: Int = 0

        @Option(help: "Datagrams to send or receive.")
        var count: Int = 10_000

        @Option(help: "Receiver: count the latency of datagrams received SECONDS or more after the first.")
        var warmUp: Double = 0

        func run() throws {
            switch role {
            case .sender: try FloorPeer.send(toLoopbackPort: port, count: count)
            case .receiver: try FloorPeer.receive(onLoopbackPort: port, count: count, warmUp: warmUp)
            case .loop: try FloorPeer.receiveOnLoop(onLoopbackPort: port, count: count, warmUp: warmUp)
            }
        }
    }
}
