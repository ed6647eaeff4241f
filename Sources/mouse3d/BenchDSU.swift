import ArgumentParser
import Mouse3DBench
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d bench dsu`: the DSU server's latency and CPU at 1 kHz with two subscribers.
    struct BenchDSU: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dsu",
            abstract:
                "DSU server at 1 kHz with two subscribers on loopback: latency from a sample's arrival to its datagram (p50/p99) and CPU, against the same server with none."
        )

        @Option(help: "Seconds per measurement.")
        var seconds: Double = 5

        func run() throws {
            try DSUBenchmark(executable: try FileSystem.executablePath(), seconds: seconds).run()
        }
    }
}
