import Mouse3DCore
import Mouse3DLinux

/// Loads this machine's identity, creating it on first use (and saying so).
public func loadIdentity(base: String, say: (String) -> Void) throws -> PeerIdentity {
    do {
        let (identity, created) = try PeerIdentity.loadOrCreate(in: base)
        if created {
            say(
                "created this machine's identity '\(TerminalText.escaped(identity.name))', fingerprint \(identity.fingerprint), in \(PeerIdentity.path(in: base))"
            )
        }
        return identity
    } catch let error as KeyValueText.ParseError {
        throw ActionableError(
            "\(error); the identity file is damaged: move it away (a new identity is made next time) and pair again")
    } catch {
        throw ActionableError("\(error)")
    }
}

/// Runs the sender's side of a pairing with `host` (HOST[:PAIRING-PORT]) and stores the receiver.
public func pairWithReceiver(host: String, code: PairingCode, identity: PeerIdentity, base: String, pairingPort: UInt16)
    throws -> PairedPeer
{
    // A name (not an address literal) may be a receiver announcing itself on this network: that
    // answer is preferred, with the pairing port it announces. Otherwise the resolver decides.
    let name = SocketAddress.host(of: host)
    let resolved = Result { try SocketAddress.resolve(host, defaultPort: pairingPort, passive: false) }
    if name.contains(where: \.isLetter) && !name.contains(":") {
        let wait = (try? resolved.get()) == nil ? 3.0 : 1.5
        let fallback =
            (try? resolved.get()) == nil
            ? "cannot look '\(name)' up on the network" : "looking '\(name)' up with the system's resolver instead"
        let (found, _) = browseReceivers(seconds: wait, fallback: fallback) { $0.receiver(named: name) != nil }
        if let receiver = found.receiver(named: name) {
            let at = SocketAddress.host(of: receiver.preferred.description)
            StandardError.write("mouse3d: '\(name)' found on the network at \(at)\n")
            return try pair(
                with: receiver.preferred.withPort(receiver.announcement.pairingPort), host: at, code: code,
                identity: identity, base: base)
        }
    }
    switch resolved {
    case .success(let address):
        return try pair(with: address, host: name, code: code, identity: identity, base: base)
    case .failure(let error):
        throw ActionableError(
            "bad receiver address \(error); no receiver announcing itself as '\(name)' was found either "
                + "(`mouse3d peers` lists the ones on the network)")
    }
}

/// The pairing exchange with the receiver's pairing service at `address`.
private func pair(with address: SocketAddress, host: String, code: PairingCode, identity: PeerIdentity, base: String)
    throws -> PairedPeer
{
    do {
        let peer = try PairingService.initiate(
            identity: identity, code: code, address: address, host: host,
            now: { WallClock.iso8601(nanoseconds: WallClock.nanoseconds()) })
        try PeerStore(base: base, role: .receiver).save(peer)
        return peer
    } catch let failure as PairingService.Failure {
        throw ActionableError("pairing failed: \(failure)")
    }
}

/// The receiver's side of pairing (`mouse3d pair` without arguments): a socket on the pairing
/// port, a fresh code shown to the user, one sender awaited, its record stored.
public struct PairingResponderSession {
    private let socket: UDPSocket
    private let identity: PeerIdentity

    /// Listens on `listen` ([ADDR]:PORT) for pairing.
    public init(listen: String, identity: PeerIdentity) throws {
        let address: SocketAddress
        do {
            address = try SocketAddress.resolve(listen, defaultPort: StreamDefaults.pairingPort, passive: true)
        } catch {
            throw ActionableError("bad --listen address \(error)")
        }
        do {
            socket = try UDPSocket(family: address.family)
            try socket.bind(to: address)
        } catch {
            throw ActionableError(
                "cannot listen for pairing on \(address): \(SystemCallError.describeBindFailure(error))")
        }
        self.identity = identity
    }

    /// Shows a new code through `show` and waits up to `timeoutSeconds` for a sender that knows it
    /// (SIGINT or SIGTERM ends the wait, storing nothing); stores the sender under `base`.
    public func run(streamPort: UInt16, timeoutSeconds: Double, base: String, show: (String) -> Void) throws
        -> PairedPeer
    {
        let loop = try EventLoop(signals: .stop)
        let code = PairingCode.random()
        show("pairing code: \(code)   (valid \(Int(timeoutSeconds)) s, one attempt)")
        show(
            "this receiver: '\(TerminalText.escaped(identity.name))', fingerprint \(identity.fingerprint), pairing on \(try socket.localAddress())"
        )
        show("on the sender run: mouse3d pair \(FileSystem.hostName) \(code)")
        let responder = PairingResponder(identity: identity, code: code, streamPort: streamPort)
        let peer: PairedPeer
        do {
            peer = try PairingService.respond(
                on: socket, responder: responder, timeoutNanoseconds: UInt64(timeoutSeconds * 1e9), loop: loop,
                now: { WallClock.iso8601(nanoseconds: WallClock.nanoseconds()) })
        } catch let failure as PairingService.Failure {
            let refused = responder.refusals.isEmpty ? "" : " (refused on the way: \(responder.refusals.summary))"
            throw ActionableError("pairing failed: \(failure)\(refused)")
        }
        if !responder.refusals.isEmpty { show("refused on the way: \(responder.refusals.summary)") }
        try PeerStore(base: base, role: .sender).save(peer)
        return peer
    }
}
