import Mouse3DCore
import Mouse3DLinux

/// The sender's side of a pairing (`mouse3d pair HOST CODE`).
public final class PairingInitiator {
    /// What to do after a datagram.
    public enum Step: Sendable {
        /// Nothing (not for us, or malformed).
        case ignore
        /// Send this to the receiver.
        case send([UInt8])
        /// Paired: store the record (its address still to be filled in).
        case paired(PairedPeer)
        /// Pairing failed, for this reason.
        case failed(String)
    }

    private let identity: PeerIdentity
    private let cpace: CPace
    private let sid: [UInt8]
    private var keys: PairingKeys?
    private var peer: PairedPeer?
    private var confirm: [UInt8]?
    /// The first datagram, resent until the receiver answers.
    public let hello: [UInt8]

    /// Starts a pairing with `code`.
    public init(identity: PeerIdentity, code: PairingCode) {
        self.identity = identity
        var generator = SystemRandomNumberGenerator()
        sid = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        cpace = CPace(code: code, sid: sid)
        hello =
            PairingMessage.hello(sid: sid, share: cpace.share, publicKey: identity.publicKey, name: identity.name)
            .encoded
    }

    /// The datagram to resend while waiting: the hello, or the confirmation once sent.
    public var pending: [UInt8] { confirm ?? hello }

    /// Handles one datagram from the receiver.
    public func handle(_ bytes: [UInt8], pairedAt: @autoclosure () -> String) -> Step {
        guard let message = PairingMessage.decode(bytes), message.sid == sid else { return .ignore }
        switch message {
        case .reply(_, let share, let key, let port, let ciphers, let confirmation, let name):
            guard keys == nil else { return confirm.map { .send($0) } ?? .ignore }
            guard Ristretto255.isValidElement(share), let staticSecret = try? identity.staticSecret(with: key),
                staticSecret.contains(where: { $0 != 0 }),
                let isk = cpace.intermediateKey(
                    sid: sid, peerShare: share,
                    ownData: identity.publicKey + Array(identity.name.utf8.prefix(PairingMessage.maximumNameBytes)),
                    peerData: PairingResponder.receiverData(
                        publicKey: key, name: name, streamPort: port, ciphers: ciphers), isInitiator: true)
            else { return .failed("the receiver's answer is malformed") }
            let derived = PairingKeys(
                intermediateKey: isk, sid: sid, staticSecret: staticSecret, senderPublicKey: identity.publicKey,
                receiverPublicKey: key)
            keys = derived
            // Sent even when the receiver's proof fails, so that its user hears of the wrong code.
            confirm = PairingMessage.confirm(sid: sid, confirmation: derived.senderConfirmation).encoded
            guard ConstantTime.equal(confirmation, derived.receiverConfirmation) else {
                return .failed(
                    "wrong code: it is not the one '\(TerminalText.escaped(name))' shows; nothing was stored. "
                        + "Run `mouse3d pair` on the receiver for a new code and try again")
            }
            var record = PairedPeer(
                role: .receiver, name: TerminalText.escaped(name), publicKey: key, secret: derived.pairingSecret,
                address: ":\(port)", epoch: 0, pairedAt: pairedAt())
            // AES-256-GCM when both CPUs have AES instructions (0.2 µs against 0.7 µs here).
            if ciphers & PairingResponder.localCiphers & 0b10 != 0 { record.algorithm = .aes256GCM }
            peer = record
            return .send(confirm!)
        case .done(_, let status, let tag):
            switch status {
            case .busy: return .failed("the receiver is pairing with another sender; try again")
            case .wrongCode: return keys == nil ? .ignore : .failed("the receiver refused the code; nothing was stored")
            case .paired:
                guard let keys, let peer, ConstantTime.equal(tag, keys.doneTag(status: 0, sid: sid)) else {
                    return .ignore
                }
                return .paired(peer)
            }
        default:
            return .ignore
        }
    }
}
