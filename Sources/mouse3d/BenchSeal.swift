import ArgumentParser
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
            guard count >= 1000 && count <= 100_000_000 else { throw ValidationError("--count must be between 1000 and 100000000.") }
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
            let sender = PeerIdentity.generate(name: "s"), receiver = PeerIdentity.generate(name: "r")
            let secret = [UInt8](repeating: 0x5A, count: 32)
            var sealer = DatagramSealer(secret: secret, senderID: sender.id, receiverID: receiver.id, epoch: 1, algorithm: algorithm)
            let opener = SealedStreamOpener(receiverID: receiver.id, peers: [
                PairedPeer(role: .sender, name: "s", publicKey: sender.publicKey, secret: secret, address: nil, epoch: 0, pairedAt: "bench"),
            ])
            var plain = AttitudeDatagram(streamID: 1, sequence: 0, sentNanoseconds: 0, buttons: [.clutch], frame: AttitudeFrame(roll: 0.1, pitch: 0.2, yaw: 0.3)).encoded
            var sealed: [UInt8] = []
            var all: [[UInt8]] = []
            all.reserveCapacity(count)
            let t0 = MonotonicClock.nanoseconds()
            for i in 0..<count {
                plain.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(i).littleEndian, toByteOffset: 8, as: UInt64.self) }
                sealer.seal(plain, into: &sealed)
                all.append(sealed)
            }
            let t1 = MonotonicClock.nanoseconds()
            var opened = 0
            for d in all {
                if case .success = d.withUnsafeBytes({ opener.open($0) }) { opened += 1 }
            }
            let t2 = MonotonicClock.nanoseconds()
            guard opened == count else { throw CommandFailure("only \(opened) of \(count) opened") }
            print("\(algorithm.name) seal: \(fixed(Double(t1 - t0) / Double(count), 0)) ns per datagram (\(fixed(Double(count) * 1e9 / Double(t1 - t0) / 1e6, 2)) M/s)")
            print("\(algorithm.name) open: \(fixed(Double(t2 - t1) / Double(count), 0)) ns per datagram (\(fixed(Double(count) * 1e9 / Double(t2 - t1) / 1e6, 2)) M/s)")
        }
    }
}
