import ArgumentParser
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Mouse3DPhone

extension Mouse3D {
    /// `mouse3d pair`: pair a sender with a receiver using a short code, list or revoke pairings.
    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pair a sender with a receiver, list pairings, or revoke one.",
            discussion: """
                On the receiver run `mouse3d pair`: it shows an 8-digit code and waits. On the sender run \
                `mouse3d pair RECEIVER-HOST CODE`. Both then store a shared secret (mode 0600) in \
                $XDG_CONFIG_HOME/mouse3d (default ~/.config/mouse3d) and every frame between them is \
                sealed with it. The code is the password of a PAKE (CPace over ristretto255): someone \
                watching the network learns nothing they could test guesses against, and an attacker \
                taking part gets one guess in 10^8; a wrong code ends the attempt. A running receiver \
                picks up new pairings and revocations at once.
                """)

        @Argument(
            help:
                "On the sender: the receiver's host, HOST[:PORT] (PORT is its pairing port, default \(StreamDefaults.pairingPort))."
        )
        var host: String?

        @Argument(help: "On the sender: the code the receiver shows.")
        var code: String?

        @Flag(help: "List paired peers (senders this receiver accepts, receivers this sender streams to).")
        var list = false

        @Option(
            help:
                "Revoke a pairing by name or fingerprint; a running receiver refuses that sender at once. 'phone' forgets the phones remembered with --phone-remember (their keys stop working; each scans the next QR code again)."
        )
        var revoke: String?

        @Option(
            help:
                "On the receiver: where to wait for the sender, [ADDR]:PORT (default 0.0.0.0 on network.pairing_port, \(StreamDefaults.pairingPort)).",
            transform: AddressArgument.init(parsing:))
        var listen: AddressArgument?

        @Option(
            help:
                "On the receiver: the port `mouse3d receive` listens on, told to the sender (default network.port, \(StreamDefaults.port))."
        )
        var streamPort: UInt16?

        @Option(help: "On the receiver: seconds to wait for the sender.")
        var timeout: Double = 120

        func validate() throws {
            if (host == nil) != (code == nil) {
                throw ValidationError(
                    "On the sender give both the receiver's host and the code: mouse3d pair HOST CODE.")
            }
            if let code, PairingCode(parsing: code) == nil {
                throw ValidationError(
                    "The code is 8 digits, as shown by `mouse3d pair` on the receiver (for example 1234-5678).")
            }
            if list || revoke != nil, host != nil { throw ValidationError("--list and --revoke take no host or code.") }
            if list && revoke != nil { throw ValidationError("Choose --list or --revoke, not both.") }
            guard timeout > 0 && timeout <= 3600 else {
                throw ValidationError("--timeout must be between 0 and 3600 seconds.")
            }
        }

        func run() throws {
            let base = FileSystem.userConfigurationDirectory
            if list { return try listPeers(base: base) }
            if let revoke { return try revokePeers(revoke, base: base) }
            let configuration = try EffectiveConfiguration.load()
            let pairingPort = UInt16(configuration[.networkPairingPort])
            let identity = try loadIdentity(base: base, say: { print($0) })
            if let host, let code, let parsed = PairingCode(parsing: code) {
                let peer = try pairWithReceiver(
                    host: host, code: parsed, identity: identity, base: base, pairingPort: pairingPort)
                print(
                    "paired with receiver '\(peer.name)' (fingerprint \(peer.fingerprint)) at \(peer.address ?? host)")
                print("stream to it with: mouse3d send --to \(peer.address ?? host)")
            } else {
                try waitForSender(
                    identity: identity, base: base, listen: listen?.text ?? "0.0.0.0:\(pairingPort)",
                    streamPort: streamPort ?? UInt16(configuration[.networkPort]))
            }
        }

        /// The receiver's side: show a code, wait for one sender, store it.
        func waitForSender(identity: PeerIdentity, base: String, listen: String, streamPort: UInt16) throws {
            let peer = try PairingResponderSession(listen: listen, identity: identity).run(
                streamPort: streamPort, timeoutSeconds: timeout, base: base
            ) { line in
                print(line)
                StandardOutput.flush()
            }
            print(
                "paired with sender '\(peer.name)' (fingerprint \(peer.fingerprint)); a running `mouse3d receive` accepts it now"
            )
        }

        func listPeers(base: String) throws {
            for role in [PairedPeer.Role.sender, .receiver] {
                let (peers, problems) = PeerStore(base: base, role: role).load()
                for problem in problems { StandardError.write("mouse3d: \(problem)\n") }
                print(role == .sender ? "senders this machine accepts:" : "receivers this machine streams to:")
                if peers.isEmpty { print("  none") }
                for p in peers {
                    print(
                        "  \(p.fingerprint)  '\(p.name)'\(p.address.map { " at \($0)" } ?? "")  paired \(p.pairedAt), epoch \(p.epoch)"
                    )
                }
            }
        }

        func revokePeers(_ selector: String, base: String) throws {
            if selector == "phone" {
                guard try PhoneSetup.forgetRememberedPhone(configurationDirectory: base) else {
                    throw CommandFailure(
                        "no phone is remembered here (run --source phone --phone-remember remembers the phones that scan its code)"
                    )
                }
                return print(
                    "forgot the remembered phones: their keys no longer work; a phone scans the QR code of the next run --source phone again"
                )
            }
            var removed: [PairedPeer] = []
            for role in [PairedPeer.Role.sender, .receiver] {
                removed += try PeerStore(base: base, role: role).revoke(selector)
            }
            guard !removed.isEmpty else {
                throw CommandFailure(
                    "no paired peer is named '\(selector)' or has that fingerprint; see `mouse3d pair --list`")
            }
            for p in removed { print("revoked \(p.role.rawValue) '\(p.name)' (\(p.fingerprint))") }
        }
    }
}
