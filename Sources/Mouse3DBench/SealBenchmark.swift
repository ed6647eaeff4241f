import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// The cost of sealing and opening one datagram, in this process.
public enum SealBenchmark {
    /// Nanoseconds per datagram to seal and to open `count` datagrams with `algorithm`.
    public struct Figures: Sendable {
        public var sealNanoseconds: Double
        public var openNanoseconds: Double
    }

    /// Why a run failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Seals `count` datagrams, then opens them all; every one must open.
    public static func run(_ algorithm: SealingAlgorithm, count: Int) throws -> Figures {
        let sender = PeerIdentity.generate(name: "s")
        let receiver = PeerIdentity.generate(name: "r")
        let secret = [UInt8](repeating: 0x5A, count: 32)
        var sealer = DatagramSealer(
            secret: secret, senderID: sender.id, receiverID: receiver.id, epoch: 1, algorithm: algorithm)
        let opener = SealedStreamOpener(
            receiverID: receiver.id,
            peers: [
                PairedPeer(
                    role: .sender, name: "s", publicKey: sender.publicKey, secret: secret, address: nil, epoch: 0,
                    pairedAt: "bench")
            ])
        var plain = AttitudeDatagram(
            streamID: 1, sequence: 0, sentNanoseconds: 0, buttons: [.clutch],
            frame: AttitudeFrame(roll: 0.1, pitch: 0.2, yaw: 0.3)
        ).encoded
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
            if d.withUnsafeBytes({ opener.openStoringNothing($0) }).verified != nil { opened += 1 }
        }
        let t2 = MonotonicClock.nanoseconds()
        guard opened == count else { throw Failure(description: "only \(opened) of \(count) opened") }
        return Figures(
            sealNanoseconds: Double(t1 - t0) / Double(count), openNanoseconds: Double(t2 - t1) / Double(count))
    }
}
