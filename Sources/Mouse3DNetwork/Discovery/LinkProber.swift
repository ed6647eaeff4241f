import Mouse3DCore
import Mouse3DLinux
import SystemPackage

/// Times the link to paired receivers with authenticated probes (``LinkProbe``) and keeps, per
/// receiver, the round-trip times and how many probes came back. Owned by one thread.
public final class LinkProber {
    /// What is known of one link.
    public struct Quality: Sendable, Equatable {
        /// Probes sent.
        public var sent: UInt64 = 0
        /// Replies that verified.
        public var answered: UInt64 = 0
        /// The latest round-trip times, ns (at most 10: the last 10 s at one probe a second).
        public var roundTrips: [UInt64] = []
        /// The frame count of the latest reply, and when the reply was sent.
        public var framesAccepted: UInt32?
        /// When the link was last heard from (a verified reply), or started being timed (monotonic ns).
        public var lastHeardNanoseconds: UInt64 = 0

        /// The median of the latest round-trip times, ns.
        public var medianRoundTrip: UInt64? {
            guard !roundTrips.isEmpty else { return nil }
            return roundTrips.sorted()[roundTrips.count / 2]
        }

        /// How much the round trip varies: the mean difference between consecutive round trips, ns
        /// (nil before two replies).
        public var roundTripJitter: UInt64? {
            guard roundTrips.count >= 2 else { return nil }
            let differences = zip(roundTrips, roundTrips.dropFirst()).map { $0 > $1 ? $0 - $1 : $1 - $0 }
            return differences.reduce(0, +) / UInt64(differences.count)
        }

        /// The share of probes not answered, 0–1 (nil before any was sent).
        public var probeLoss: Double? { sent == 0 ? nil : Double(sent - min(answered, sent)) / Double(sent) }

        /// `rtt 0.21 ms, loss 0 %` or `no reply yet`.
        public var summary: String {
            guard let rtt = medianRoundTrip else {
                return sent == 0 ? "not measured" : "no reply to \(sent) probe\(sent == 1 ? "" : "s")"
            }
            let loss = (probeLoss ?? 0) * 100
            return "rtt \(Self.milliseconds(rtt)) ms"
                + (roundTripJitter.map { ", jitter \(Self.milliseconds($0)) ms" } ?? "")
                + ", loss \(loss < 10 && loss > 0 ? String(format1: loss) : String(Int(loss.rounded()))) %"
        }

        static func milliseconds(_ ns: UInt64) -> String {
            let hundredths = (ns + 5_000) / 10_000
            return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
        }
    }

    private struct Link {
        var address: SocketAddress
        var key: LinkProbeKey
        var quality = Quality()
    }
    private struct Outstanding {
        var link: String
        var sent: UInt64
    }

    /// This machine's id (the sender's), put in every request.
    public let senderID: [UInt8]
    private var links: [String: Link] = [:]
    private var outstanding: [[UInt8]: Outstanding] = [:]
    private var sockets: [Int32: UDPSocket] = [:]
    private var buffer = [UInt8](repeating: 0, count: 512)

    /// A prober for the sender `senderID`.
    public init(senderID: [UInt8]) {
        self.senderID = senderID
    }

    /// The descriptors to wait on for replies.
    public var descriptors: [FileDescriptor] { sockets.values.map(\.descriptor).sorted { $0.rawValue < $1.rawValue } }

    /// Starts (or moves) the link named `name` (a receiver's fingerprint) to `address`, keyed by the
    /// pairing's `secret` and the receiver's id. Its figures start over when the address changes.
    public func track(_ name: String, address: SocketAddress, secret: [UInt8], receiverID: [UInt8])
        throws(SystemCallError)
    {
        if sockets[address.family] == nil { sockets[address.family] = try UDPSocket(family: address.family) }
        if links[name]?.address == address { return }
        var link = Link(address: address, key: LinkProbeKey(secret: secret, senderID: senderID, receiverID: receiverID))
        link.quality.lastHeardNanoseconds = MonotonicClock.nanoseconds()
        links[name] = link
    }

    /// Stops timing `name`.
    public func forget(_ name: String) { links[name] = nil }

    /// The figures of `name`.
    public func quality(of name: String) -> Quality? { links[name]?.quality }

    /// Sends one probe to every link.
    public func probeAll(now: UInt64) throws {
        if outstanding.count > 4096 { outstanding.removeAll() }  // replies that never came
        for name in links.keys.sorted() {
            guard var link = links[name], let socket = sockets[link.address.family] else { continue }
            var generator = SystemRandomNumberGenerator()
            let challenge = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            // The wall clock goes in the probe (the receiver refuses stale ones); the round trip is
            // timed with `now`, kept here.
            let bytes = link.key.seal(
                LinkProbe(isReply: false, id: senderID, challenge: challenge, sentNanoseconds: WallClock.nanoseconds()))
            _ = try bytes.withUnsafeBytes { raw in try socket.send(raw, to: link.address) }
            link.quality.sent += 1
            links[name] = link
            outstanding[challenge] = Outstanding(link: name, sent: now)
        }
    }

    /// Reads every reply waiting; returns the links that got one.
    @discardableResult
    public func readReplies(now: UInt64) throws -> [String] {
        var updated: [String] = []
        for socket in sockets.values {
            while let (length, from) = try buffer.withUnsafeMutableBytes({ raw in try socket.receive(into: raw) }) {
                guard length == LinkProbe.byteCount else { continue }
                let challenge = Array(buffer[12..<28])
                guard let pending = outstanding[challenge], var link = links[pending.link], link.address == from else {
                    continue
                }
                let reply = buffer.withUnsafeBytes { link.key.open(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
                guard let reply, reply.isReply else { continue }
                outstanding[challenge] = nil
                link.quality.answered += 1
                link.quality.roundTrips.append(now &- pending.sent)
                if link.quality.roundTrips.count > 10 { link.quality.roundTrips.removeFirst() }
                link.quality.framesAccepted = reply.framesAccepted
                link.quality.lastHeardNanoseconds = now
                links[pending.link] = link
                updated.append(pending.link)
            }
        }
        return updated
    }
}

extension LinkProber {
    /// Sends `probes` probes to every link, `spacingNanoseconds` apart, and waits up to
    /// `graceNanoseconds` after the last for replies (less once every link answered them all).
    public func measure(probes: Int, spacingNanoseconds: UInt64, graceNanoseconds: UInt64) throws {
        guard probes > 0 else { return }
        let loop = try EventLoop(signals: [])
        let names = Array(links.keys)
        func allAnswered() -> Bool { names.allSatisfy { (links[$0]?.quality.answered ?? 0) >= UInt64(probes) } }
        var sent = 0
        var nextProbe = MonotonicClock.nanoseconds()
        var graceEnd: UInt64?
        loop.timer(deadline: { sent < probes ? nextProbe : nil }) { now in
            try self.probeAll(now: now)
            sent += 1
            nextProbe = now + spacingNanoseconds
            if sent == probes { graceEnd = now + graceNanoseconds }
        }
        loop.timer(deadline: { graceEnd }) { [unowned loop] _ in loop.stop() }
        for descriptor in descriptors {
            loop.watch(descriptor) { [unowned loop] in
                try self.readReplies(now: MonotonicClock.nanoseconds())
                if sent == probes && allAnswered() { loop.stop() }
            }
        }
        _ = try loop.run()
    }
}

extension String {
    /// One decimal place.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
