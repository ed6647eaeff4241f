import ArgumentParser
import Mouse3DBench
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d bench seal`: the cost of sealing and opening one datagram, in process.
    struct BenchSeal: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seal",
            abstract: "Seal and open datagrams in this process: nanoseconds per datagram for each.")

        @Option(help: "Datagrams to seal and open.")
        var count: Int = 200_000

        func validate() throws {
            guard count >= 1000 && count <= 100_000_000 else {
                throw ValidationError("--count must be between 1000 and 100000000.")
            }
        }

        func run() throws {
            for algorithm in SealingAlgorithm.allCases {
                guard algorithm == .chacha20Poly1305 || FrameCipher.aes256GCMAvailable else {
                    print("\(algorithm.name): not available on this CPU (no AES instructions)")
                    continue
                }
                try measure(algorithm)
            }
        }

        func measure(_ algorithm: SealingAlgorithm) throws {
            let f: SealBenchmark.Figures
            do {
                f = try SealBenchmark.run(algorithm, count: count)
            } catch {
                throw CommandFailure("\(error)")
            }
            print(
                "\(algorithm.name) seal: \(fixed(f.sealNanoseconds, 0)) ns per datagram (\(fixed(1e3 / f.sealNanoseconds, 2)) M/s)"
            )
            print(
                "\(algorithm.name) open: \(fixed(f.openNanoseconds, 0)) ns per datagram (\(fixed(1e3 / f.openNanoseconds, 2)) M/s)"
            )
        }
    }
}
