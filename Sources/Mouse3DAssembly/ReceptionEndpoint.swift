import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// Where `receive` listens: the address (unauthenticated formats on loopback unless one is given),
/// the pairings that open sealed frames, the socket, and the announcement that lets senders find
/// it. Says what it listens for, and warns when anyone may send.
public final class ReceptionEndpoint {
    /// The socket and its intake.
    public let receiver: AttitudeReceiver
    /// The paired senders (sealed frames only).
    public let pairings: ReceiverPairings?
    private let format: WireFormat
    private let pairingPort: UInt16

    /// Where and what to listen for.
    public struct Request {
        /// `--listen`, as given; nil: `receive.listen` or its default.
        public var listen: String?
        /// `receive.listen`, and whether it was set anywhere (not its built-in default).
        public var configuredListen: String?
        public var listenIsBuiltIn: Bool
        public var port: UInt16
        public var pairingPort: UInt16
        public var format: WireFormat
        /// An output that moves the pointer or clicks (said in the unauthenticated warning).
        public var drivesDevices: Bool

        /// A request.
        public init(
            listen: String?, configuredListen: String?, listenIsBuiltIn: Bool, port: UInt16, pairingPort: UInt16,
            format: WireFormat, drivesDevices: Bool
        ) {
            self.listen = listen
            self.configuredListen = configuredListen
            self.listenIsBuiltIn = listenIsBuiltIn
            self.port = port
            self.pairingPort = pairingPort
            self.format = format
            self.drivesDevices = drivesDevices
        }
    }

    /// Resolves the address, runs `preflight` (what the outputs need, checked before anything
    /// listens or announces: a service must not start, announce itself and fail hours later at its
    /// first frame), loads the pairings and listens.
    public init(_ request: Request, preflight: () throws -> Void, diagnostics: Diagnostics) throws {
        format = request.format
        pairingPort = request.pairingPort
        let port = request.port
        // Unauthenticated modes listen on loopback unless an address is given (by flag or in a file).
        let configuredListen =
            request.listenIsBuiltIn && request.format != .sealed ? "127.0.0.1" : (request.configuredListen ?? "0.0.0.0")
        let listenText = request.listen ?? SocketAddress.text(host: configuredListen, port: port)
        let address: SocketAddress
        do {
            address = try SocketAddress.resolve(listenText, defaultPort: port, passive: false)
        } catch {
            throw ActionableError("bad --listen address \(error)")
        }
        try preflight()
        pairings =
            request.format == .sealed
            ? try ReceiverPairings(base: FileSystem.userConfigurationDirectory, diagnostics: diagnostics) : nil
        do {
            receiver = try AttitudeReceiver(
                listeningOn: address, format: request.format, opener: pairings?.opener, store: pairings)
        } catch {
            throw ActionableError("cannot listen on \(address): \(SystemCallError.describeBindFailure(error))")
        }
        let raw = request.format == .raw
        switch request.format {
        case .sealed:
            diagnostics.say("listening on \(receiver.localAddress) for sealed frames from paired senders")
        case .datagram, .raw:
            diagnostics.say(
                "listening on \(receiver.localAddress) for \(raw ? "raw 12-byte frames" : "plain datagrams")")
            diagnostics.say(
                "warning: --\(raw ? "raw" : "insecure"): frames are not authenticated; anyone who can reach "
                    + "\(receiver.localAddress)\(receiver.localAddress.isLoopback ? " (any local user)" : "") can send it frames"
                    + (request.drivesDevices ? ", and so move your pointer and click" : ""))
        }
    }

    /// The DNS-SD announcement of this receiver and the outputs it drives (`print`, a device mode),
    /// made once the outputs are known; nil (said why) when there is no Avahi to reach.
    public func announcer(outputs: [String], diagnostics: Diagnostics) -> ReceiverAnnouncer? {
        ReceiverAnnouncer(
            ReceiverAnnouncement(
                name: pairings?.identity.name ?? FileSystem.hostName,
                fingerprint: pairings?.identity.fingerprint ?? "",
                wire: format.announced,
                outputs: outputs,
                pairingPort: pairingPort),
            port: receiver.localAddress.port, loopbackOnly: receiver.localAddress.isLoopback,
            diagnostics: diagnostics)
    }
}

extension WireFormat {
    /// What a receiver taking this format announces it accepts.
    public var announced: String {
        switch self {
        case .sealed: "sealed"
        case .datagram: "plain"
        case .raw: "raw"
        }
    }
}
