import Mouse3DCore
import Mouse3DLinux

/// The receiver's side of a pairing (`mouse3d pair` without arguments): answers one sender's hello,
/// checks its confirmation and yields the paired sender. Pure message handling; the command owns
/// the socket. One attempt per code: a wrong confirmation ends the exchange.
public final class PairingResponder {
    /// How the exchange ended.
    public enum Outcome: Sendable {
        /// The sender proved it knew the code; store this record.
        case paired(PairedPeer)
        /// The sender did not know the code (or the exchange was tampered with).
        case wrongCode(name: String, fingerprint: String)
    }

    private enum State {
        case waiting
        case engaged(sid: [UInt8], source: String, reply: [UInt8], keys: PairingKeys, peer: PairedPeer)
        case finished(sid: [UInt8], done: [UInt8])
    }

    private let identity: PeerIdentity
    private let code: PairingCode
    private let streamPort: UInt16
    private var state = State.waiting

    /// Prepares to pair with `code`, telling the sender to stream to `streamPort`.
    public init(identity: PeerIdentity, code: PairingCode, streamPort: UInt16) {
        self.identity = identity
        self.code = code
        self.streamPort = streamPort
    }

    /// What the receiver's CPace share is bound to: its key, name and stream port (so none can be
    /// altered on the way).
    static func receiverData(publicKey: [UInt8], name: String, streamPort: UInt16, ciphers: UInt8) -> [UInt8] {
        var data = publicKey + Array(name.utf8.prefix(PairingMessage.maximumNameBytes))
        data.appendLittleEndian(streamPort)
        data.append(ciphers)
        return data
    }

    /// The ciphers this machine can open: bit 0 ChaCha20-Poly1305, bit 1 AES-256-GCM.
    static var localCiphers: UInt8 { FrameCipher.aes256GCMAvailable ? 0b11 : 0b01 }

    /// Handles one datagram from `source` (an address in text); returns the answer to send back, if
    /// any, and the outcome once there is one.
    public func handle(_ bytes: [UInt8], from source: String, pairedAt: @autoclosure () -> String) -> (
        answer: [UInt8]?, outcome: Outcome?
    ) {
        guard let message = PairingMessage.decode(bytes) else { return refuse(.malformedPairingMessage) }
        switch (state, message) {
        case (.waiting, .hello(let sid, let share, let key, let name)):
            guard Ristretto255.isValidElement(share), let staticSecret = try? identity.staticSecret(with: key),
                staticSecret.contains(where: { $0 != 0 })
            else { return refuse(.malformedPairingMessage) }
            let cpace = CPace(code: code, sid: sid)
            let ciphers = PairingResponder.localCiphers
            let ownData = PairingResponder.receiverData(
                publicKey: identity.publicKey, name: identity.name, streamPort: streamPort, ciphers: ciphers)
            guard
                let isk = cpace.intermediateKey(
                    sid: sid, peerShare: share, ownData: ownData,
                    peerData: key + Array(name.utf8.prefix(PairingMessage.maximumNameBytes)), isInitiator: false)
            else { return refuse(.malformedPairingMessage) }
            let keys = PairingKeys(
                intermediateKey: isk, sid: sid, staticSecret: staticSecret, senderPublicKey: key,
                receiverPublicKey: identity.publicKey)
            let reply = PairingMessage.reply(
                sid: sid, share: cpace.share, publicKey: identity.publicKey, streamPort: streamPort, ciphers: ciphers,
                confirmation: keys.receiverConfirmation, name: identity.name
            ).encoded
            let peer = PairedPeer(
                role: .sender, name: TerminalText.escaped(name), publicKey: key, secret: keys.pairingSecret,
                address: nil, epoch: 0, pairedAt: pairedAt())
            state = .engaged(sid: sid, source: source, reply: reply, keys: keys, peer: peer)
            return (reply, nil)
        case (.engaged(let sid, let from, let reply, _, _), .hello(let helloSID, _, _, _)):
            if helloSID == sid && from == source { return (reply, nil) }  // our reply was lost
            refusals.add(.pairingBusy)
            return (
                PairingMessage.done(sid: helloSID, status: .busy, tag: [UInt8](repeating: 0, count: 32)).encoded, nil
            )
        case (.engaged(let sid, let from, _, let keys, let peer), .confirm(let confirmSID, let confirmation)):
            guard confirmSID == sid, from == source else { return (nil, nil) }
            if ConstantTime.equal(confirmation, keys.senderConfirmation) {
                let done = PairingMessage.done(sid: sid, status: .paired, tag: keys.doneTag(status: 0, sid: sid))
                    .encoded
                state = .finished(sid: sid, done: done)
                return (done, .paired(peer))
            }
            let done = PairingMessage.done(sid: sid, status: .wrongCode, tag: [UInt8](repeating: 0, count: 32)).encoded
            state = .finished(sid: sid, done: done)
            refusals.add(.wrongCode)
            return (done, .wrongCode(name: peer.name, fingerprint: peer.fingerprint))
        case (.finished(let sid, let done), .confirm(let confirmSID, _)) where confirmSID == sid:
            return (done, nil)  // our verdict was lost
        default:
            return (nil, nil)
        }
    }

    /// The source of the hello being answered, while an exchange is under way (until the sender
    /// confirms); nil before a hello and after the verdict.
    public var engagedWith: String? {
        if case .engaged(_, let source, _, _, _) = state { return source }
        return nil
    }

    /// Pairing messages refused so far, by reason.
    public private(set) var refusals = RefusalCounts()

    private func refuse(_ reason: Refusal) -> (answer: [UInt8]?, outcome: Outcome?) {
        refusals.add(reason)
        return (nil, nil)
    }
}
