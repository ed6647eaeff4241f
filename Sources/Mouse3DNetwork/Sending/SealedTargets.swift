import Mouse3DCore
import Mouse3DLinux

/// The paired receivers a sealed `send` streams to, each with its address and a sealer for a new
/// epoch: chosen under the pairing's session lock (held for the life of the process, so a second
/// sending process of this identity is refused) and stored durably before the first frame.
public struct SealedTargets {
    /// The paired receiver's record (with the epoch this run uses).
    public var peer: PairedPeer
    /// Where to send; nil for a receiver that discovery has to find first.
    public var address: SocketAddress?
    /// This machine's identity.
    public var identity: PeerIdentity
    /// Seals this run's frames for it.
    public var sealer: DatagramSealer
    /// The session lock, held while this value lives.
    public let lock: FileLock

    /// Chooses receivers for `requested` (`--to` values; empty: every paired receiver, or the one
    /// named `discoverName`), pairing first with `pairCode` if given. When `discovering`, a paired
    /// receiver whose stored address does not resolve is kept, to be found on the network.
    public static func choose(
        _ requested: [String], pairCode: PairingCode?, base: String, defaultPort: UInt16, pairingPort: UInt16,
        discovering: Bool = false, discoverName: String? = nil, diagnostics: Diagnostics
    ) throws -> [SealedTargets] {
        let identity = try loadIdentity(base: base, say: diagnostics.say)
        let store = PeerStore(base: base, role: .receiver)
        if let pairCode, let host = requested.first {
            // `--to HOST[:STREAM-PORT]` names the stream port; pairing goes to the host's pairing port.
            let pairingAddress = SocketAddress.text(host: SocketAddress.host(of: host), port: pairingPort)
            let peer = try pairWithReceiver(
                host: pairingAddress, code: pairCode, identity: identity, base: base, pairingPort: pairingPort)
            diagnostics.say("paired with receiver '\(peer.name)' (fingerprint \(peer.fingerprint))")
        }
        let (paired, problems) = store.load()
        for problem in problems { diagnostics.say(problem) }
        guard !paired.isEmpty else {
            throw ActionableError(
                "no paired receivers: run `mouse3d pair` on the receiver, then `mouse3d pair HOST CODE` here "
                    + "(or `mouse3d send --to HOST --pair CODE`); --insecure sends unauthenticated frames instead")
        }
        var chosen: [(PairedPeer, SocketAddress?)] = []
        if let discoverName {
            guard
                let peer = paired.first(where: {
                    $0.name == discoverName || $0.fingerprint == discoverName.lowercased()
                })
            else {
                throw ActionableError(
                    "no paired receiver named '\(discoverName)'; paired: \(paired.map { "'\($0.name)'" }.joined(separator: ", ")) "
                        + "(`mouse3d peers` lists the receivers on the network)")
            }
            chosen.append((peer, try? resolve(peer.address ?? "", for: peer)))
        } else if requested.isEmpty {
            for peer in paired {
                chosen.append(
                    (
                        peer,
                        discovering
                            ? try? resolve(peer.address ?? "", for: peer) : try resolve(peer.address ?? "", for: peer)
                    ))
            }
        } else {
            for text in requested {
                if let peer = paired.first(where: { $0.name == text || $0.fingerprint == text.lowercased() }) {
                    chosen.append((peer, try resolve(peer.address ?? "", for: peer)))
                    continue
                }
                let address: SocketAddress
                do {
                    address = try SocketAddress.resolve(text, defaultPort: defaultPort, passive: false)
                } catch {
                    throw ActionableError("bad receiver address \(error)")
                }
                guard
                    let peer = paired.first(where: {
                        (try? SocketAddress.resolve($0.address ?? "", defaultPort: StreamDefaults.port, passive: false))
                            == address
                    })
                else {
                    throw ActionableError(
                        "no paired receiver at \(address): run `mouse3d pair` there, then `mouse3d send --to \(text) --pair CODE`; "
                            + "paired: \(paired.map { "'\($0.name)' at \($0.address ?? "?")" }.joined(separator: ", "))"
                    )
                }
                chosen.append((peer, address))
            }
        }
        guard chosen.count <= StreamDefaults.maximumPeers else {
            throw ActionableError(
                "\(chosen.count) paired receivers; at most \(StreamDefaults.maximumPeers) at once: choose with --to")
        }
        return try chosen.map { chosenPeer, address in
            let (lock, peer) = try store.lockSession(of: chosenPeer)
            guard let epoch = SessionEpoch.next(after: peer.epoch, wallNanoseconds: WallClock.nanoseconds()) else {
                throw ActionableError("'\(peer.name)': session counter exhausted; pair again")
            }
            var next = peer
            next.epoch = epoch
            do {
                try store.saveState(next)
            } catch {
                throw ActionableError("cannot store the session counter for '\(peer.name)': \(error)")
            }
            return SealedTargets(
                peer: next, address: address, identity: identity,
                sealer: DatagramSealer(
                    secret: peer.secret, senderID: identity.id, receiverID: peer.id, epoch: next.epoch,
                    // Moved to a CPU without AES instructions: every receiver opens ChaCha20-Poly1305.
                    algorithm: peer.algorithm == .aes256GCM && FrameCipher.aes256GCMAvailable
                        ? .aes256GCM : .chacha20Poly1305),
                lock: lock)
        }
    }

    private static func resolve(_ text: String, for peer: PairedPeer) throws -> SocketAddress {
        do {
            return try SocketAddress.resolve(text, defaultPort: StreamDefaults.port, passive: false)
        } catch {
            throw ActionableError("paired receiver '\(peer.name)': bad address \(error)")
        }
    }
}
