import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// Where `send` streams: the receivers asked for (`--to`, `send.to`) or, without them, every paired
/// receiver, found and followed through discovery; the streamer that sends to them and the finder
/// that keeps their addresses. Says what it does (the start line's destination) and what it did
/// (a line per receiver at the end).
public final class StreamTargets {
    /// The socket and its peers.
    public let streamer: AttitudeStreamer
    /// The output that streams fused attitudes to them.
    public func output(report: @escaping (String) -> Void) -> StreamerOutput {
        StreamerOutput(streamer: streamer, report: report)
    }
    /// Discovery of paired receivers (sealed frames only).
    public let finder: SenderDiscovery?
    private let targets: [SealedTargets]
    private let discovering: Bool

    /// What to send to.
    public struct Request {
        /// Receivers given (HOST[:PORT], [IPv6][:PORT] or a paired receiver's name); empty: every
        /// paired receiver.
        public var peers: [String]
        public var format: WireFormat
        /// `--pair CODE`: pair with the one receiver given first.
        public var pairCode: PairingCode?
        /// `--discover` (or `network.discovery` without receivers given), and its NAME.
        public var discover: Bool
        public var discoverName: String?
        public var port: UInt16
        public var pairingPort: UInt16

        /// A request.
        public init(
            peers: [String], format: WireFormat, pairCode: PairingCode?, discover: Bool, discoverName: String?,
            port: UInt16, pairingPort: UInt16
        ) {
            self.peers = peers
            self.format = format
            self.pairCode = pairCode
            self.discover = discover
            self.discoverName = discoverName
            self.port = port
            self.pairingPort = pairingPort
        }
    }

    /// Chooses the receivers (pairing first with `--pair`), opens the stream's socket and, for
    /// sealed frames, the discovery that finds and follows them.
    public init(_ request: Request, diagnostics: Diagnostics) throws {
        guard request.peers.count <= StreamDefaults.maximumPeers else {
            throw ActionableError(
                "At most \(StreamDefaults.maximumPeers) receivers (--to) at once; \(request.peers.count) were given.")
        }
        guard !request.peers.isEmpty || request.format == .sealed else {
            throw ActionableError("Give at least one receiver with --to HOST[:PORT] (or send.to in the configuration).")
        }
        let port = request.port
        let addresses: [SocketAddress]
        var sealers: [DatagramSealer] = []
        var targets: [SealedTargets] = []
        discovering = request.format == .sealed && request.peers.isEmpty && request.discover
        if request.format == .sealed {
            targets = try SealedTargets.choose(
                request.peers, pairCode: request.pairCode, base: FileSystem.userConfigurationDirectory,
                defaultPort: port, pairingPort: request.pairingPort, discovering: discovering,
                discoverName: request.discoverName, diagnostics: diagnostics)
            // A receiver without a known address is paused until discovery finds it.
            addresses = targets.map { $0.address ?? SocketAddress(addressBytes: [127, 0, 0, 1], port: port)! }
            sealers = targets.map(\.sealer)
        } else {
            addresses = try request.peers.map { text in
                do {
                    return try SocketAddress.resolve(text, defaultPort: port, passive: false)
                } catch {
                    throw ActionableError("bad receiver address \(error)")
                }
            }
            diagnostics.say(
                "warning: --\(request.format == .raw ? "raw" : "insecure"): frames are not authenticated; a receiver must accept anyone to take them"
            )
        }
        self.targets = targets
        streamer = try AttitudeStreamer(peers: addresses, format: request.format, sealers: sealers)
        finder =
            request.format == .sealed
            ? try SenderDiscovery(targets: targets, streamer: streamer, browse: discovering, diagnostics: diagnostics)
            : nil
    }

    /// "sealed stream 1a2b to 'desk' at 192.0.2.7:24930".
    public var destination: String {
        let kind =
            switch streamer.format {
            case .raw: "raw frames"
            case .datagram: "plain stream \(String(streamer.streamID, radix: 16))"
            case .sealed: "sealed stream \(String(streamer.streamID, radix: 16))"
            }
        let peers = streamer.peers.enumerated().map { i, peer in
            // "'desk' at 192.0.2.7:24930", "'desk' (to be found)", or a bare address given with --to.
            guard targets.indices.contains(i) else { return "\(peer.address)" }
            let who = "'\(targets[i].peer.name)'"
            return peer.paused ? "\(who) (to be found)" : "\(who) at \(peer.address)"
        }
        return "\(kind) to " + peers.joined(separator: ", ")
    }

    /// ", following paired receivers on the network" while discovery follows them, or "".
    public var following: String {
        discovering && finder?.discovery != nil ? ", following paired receivers on the network" : ""
    }

    /// Starts following the receivers on `loop`.
    public func attach(to loop: EventLoop) { finder?.attach(to: loop) }

    /// A line per receiver: sent, not delivered, the link's round trip.
    public var summary: [String] {
        streamer.peers.enumerated().map { i, peer in
            if targets.indices.contains(i), targets[i].address == nil, peer.sent == 0 {
                // Its address was a placeholder: discovery never found it.
                return "'\(targets[i].peer.name)': never found on the network; nothing sent"
            }
            let who = targets.indices.contains(i) ? "'\(targets[i].peer.name)' at " : ""
            return
                "\(who)\(peer.address): sent \(peer.sent), not delivered \(peer.notDelivered)\(finder?.linkSummary(for: i) ?? "")"
        }
    }
}
