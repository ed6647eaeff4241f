import Mouse3DCore
import Mouse3DLinux

/// Sends attitudes to up to eight peers over UDP, as datagrams of one stream (or as raw frames).
///
/// A peer that is not listening, a network that is down or a full socket buffer never stops the
/// stream: the datagram is counted as not delivered and the next one is tried. Owned by one thread.
public final class AttitudeStreamer {
    /// One destination and how sending to it went.
    public struct Peer: Sendable {
        /// Where datagrams go.
        public var address: SocketAddress
        /// Datagrams handed to the kernel.
        public var sent: UInt64 = 0
        /// Datagrams refused on the way (peer not listening, network down, buffer full).
        public var notDelivered: UInt64 = 0
        /// The reason of the latest refusal, while refusals go on.
        public var failing: String?
        /// Nothing is sent to a paused peer (a discovered receiver that went away).
        public var paused = false
    }

    /// The destinations.
    public private(set) var peers: [Peer]
    /// This run's stream id (random).
    public let streamID: UInt32
    /// The sequence number the next datagram gets.
    public private(set) var nextSequence: UInt64 = 0
    /// What is sent.
    public let format: WireFormat
    /// One socket per address family among the peers, in the families' order.
    private var sockets: [(family: Int32, socket: UDPSocket)] = []
    private var buffer: [UInt8] = []
    private var sealed: [UInt8] = []
    /// One sealer per peer, for `.sealed`.
    private var sealers: [DatagramSealer]
    /// With several peers, one frame's datagrams for one `sendmmsg`, and the peers they are for.
    private let outgoing: OutgoingDatagrams
    private var batched: [Int] = []

    /// Prepares sockets for every family among `peers`. `.sealed` needs one sealer per peer.
    public init(
        peers: [SocketAddress], format: WireFormat, sealers: [DatagramSealer] = [],
        streamID: UInt32 = .random(in: 1...UInt32.max)
    ) throws(SystemCallError) {
        precondition(format != .sealed || sealers.count == peers.count, "one sealer per peer")
        self.peers = peers.map { Peer(address: $0) }
        self.format = format
        self.sealers = sealers
        self.streamID = streamID
        outgoing = OutgoingDatagrams(capacity: max(1, peers.count))
        batched.reserveCapacity(peers.count)
        for address in peers { try openSocket(for: address.family) }
    }

    /// The socket for `family`, if one is open.
    private func socket(for family: Int32) -> UDPSocket? { sockets.first { $0.family == family }?.socket }

    /// Opens a socket for `family` unless one is open.
    private func openSocket(for family: Int32) throws(SystemCallError) {
        guard socket(for: family) == nil else { return }
        let socket = try UDPSocket(family: family)
        try? socket.setSendBufferSize(1 << 20)
        sockets.append((family, socket))
        sockets.sort { $0.family < $1.family }
    }

    /// Sends to peer `index` at `address` from now on (a receiver found again, or moved), and
    /// resumes it if paused. Its stream (and seal) carries on where it was.
    public func redirect(peerAt index: Int, to address: SocketAddress) throws(SystemCallError) {
        try openSocket(for: address.family)
        peers[index].address = address
        peers[index].paused = false
        peers[index].failing = nil
    }

    /// Stops sending to peer `index` until it is redirected.
    public func pause(peerAt index: Int) { peers[index].paused = true }

    /// A change in a peer's reachability worth telling the user about.
    public enum PeerEvent: Sendable {
        /// Sending to the peer started failing, with the reason.
        case failing(SocketAddress, String)
        /// Sending to the peer works again.
        case recovered(SocketAddress)
    }

    /// Sends one attitude to every peer. Returns reachability changes (usually none).
    @discardableResult
    public func send(_ frame: AttitudeFrame, buttons: ButtonState, now: UInt64) throws -> [PeerEvent] {
        buffer.removeAll(keepingCapacity: true)
        switch format {
        case .datagram, .sealed:
            buffer =
                AttitudeDatagram(
                    streamID: streamID, sequence: nextSequence, sentNanoseconds: now, buttons: buttons, frame: frame
                ).encoded
        case .raw:
            frame.encode(into: &buffer)
        }
        nextSequence += 1
        var events: [PeerEvent] = []
        if peers.count == 1 {
            // One receiver (the usual case): one sendto.
            if !peers[0].paused, let socket = socket(for: peers[0].address.family) {
                let address = peers[0].address
                record(try withDatagram(for: 0) { try socket.send($0, to: address) }, peer: 0, &events)
            }
            return events
        }
        // Several: each family's datagrams in one sendmmsg (families in order: events in a steady one).
        for (family, socket) in sockets {
            outgoing.removeAll()
            batched.removeAll(keepingCapacity: true)
            for i in peers.indices where !peers[i].paused && peers[i].address.family == family {
                let address = peers[i].address
                withDatagram(for: i) { outgoing.append($0, to: address) }
                batched.append(i)
            }
            guard outgoing.count > 0 else { continue }
            defer {
                // Also when it throws: the datagrams that went before the error are counted.
                for (k, outcome) in outgoing.outcomes.enumerated() { record(outcome, peer: batched[k], &events) }
            }
            try socket.send(outgoing)
        }
        return events
    }

    /// Calls `body` with this frame's datagram for peer `i` (sealed for it, when sealing).
    private func withDatagram<R>(for i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard format == .sealed else { return try buffer.withUnsafeBytes(body) }
        sealers[i].seal(buffer, into: &sealed)
        return try sealed.withUnsafeBytes(body)
    }

    /// Counts how sending to peer `i` went; a change of reachability becomes an event.
    private func record(_ outcome: UDPSocket.SendOutcome, peer i: Int, _ events: inout [PeerEvent]) {
        switch outcome {
        case .sent:
            peers[i].sent += 1
            if peers[i].failing != nil {
                peers[i].failing = nil
                events.append(.recovered(peers[i].address))
            }
        case .notDelivered(let errno):
            peers[i].notDelivered += 1
            if peers[i].failing == nil {
                peers[i].failing = errno.description
                events.append(.failing(peers[i].address, errno.description))
            }
        }
    }
}
