import Mouse3DCore
import Mouse3DLinux

/// One party of a CPace exchange over ristretto255 with SHA-512 (the balanced PAKE chosen by the
/// CFRG, draft-irtf-cfrg-cpace): both parties derive a generator from the pairing code and the
/// session id, exchange one group element each and hash the Diffie-Hellman result with the
/// transcript. An eavesdropper cannot test guesses of the code offline (that would need the
/// discrete logarithm of a hashed generator); an active attacker learns whether one guess was right
/// per exchange it takes part in.
struct CPace {
    /// The domain separation string of the ristretto255 suite.
    static let domain = Array("CPaceRistretto255".utf8)
    /// The channel identifier binding these exchanges to mouse3d pairing.
    static let channel = Array("mouse3d pair v1".utf8)

    /// The secret scalar.
    private let scalar: [UInt8]
    /// The element sent to the peer.
    let share: [UInt8]

    /// Prepares one party for `code` and the 16-byte session id `sid`.
    init(code: PairingCode, sid: [UInt8]) {
        self.init(scalar: Ristretto255.randomScalar(), generator: CPace.generator(code: code, sid: sid))
    }

    /// One party with a given secret scalar (the draft's test vectors fix it).
    init(scalar: [UInt8], generator: [UInt8]) {
        self.scalar = scalar
        // The generator is a valid non-identity element and the scalar non-zero, so this succeeds.
        share = Ristretto255.multiply(scalar, generator)!
    }

    /// The generator for a code and session.
    static func generator(code: PairingCode, sid: [UInt8]) -> [UInt8] {
        generator(prs: Array(code.digits.utf8), channel: channel, sid: sid)
    }

    /// The draft's calculate_generator: the one-way map of SHA-512 of generator_string =
    /// lv_cat(DSI, PRS, zero padding, CI, sid), padded so DSI and PRS fill the hash's 128-byte block.
    static func generator(prs: [UInt8], channel: [UInt8], sid: [UInt8]) -> [UInt8] {
        Ristretto255.element(fromUniform: Digest.sha512.hash(generatorString(prs: prs, channel: channel, sid: sid)))
    }

    /// lv_cat(DSI, PRS, zero_bytes(len_zpad), CI, sid).
    static func generatorString(prs: [UInt8], channel: [UInt8], sid: [UInt8]) -> [UInt8] {
        let padding = max(0, 128 - 1 - lengthPrefixed(prs).count - lengthPrefixed(domain).count)
        return lvCat([domain, prs, [UInt8](repeating: 0, count: padding), channel, sid])
    }

    /// The intermediate session key from the peer's element, or `nil` if that element is invalid
    /// or the identity. `initiator` says whose share and data come first in the transcript.
    func intermediateKey(
        sid: [UInt8], peerShare: [UInt8], ownData: [UInt8], peerData: [UInt8], isInitiator: Bool
    ) -> [UInt8]? {
        guard let k = Ristretto255.multiply(scalar, peerShare) else { return nil }
        let transcript =
            isInitiator
            ? CPace.lvCat([share, ownData]) + CPace.lvCat([peerShare, peerData])
            : CPace.lvCat([peerShare, peerData]) + CPace.lvCat([share, ownData])
        return Digest.sha512.hash(CPace.lvCat([CPace.domain + Array("_ISK".utf8), sid, k]) + transcript)
    }

    /// LEB128 length then bytes.
    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var n = bytes.count
        repeat {
            var byte = UInt8(n & 0x7F)
            n >>= 7
            if n > 0 { byte |= 0x80 }
            out.append(byte)
        } while n > 0
        return out + bytes
    }

    /// The length-prefixed concatenation of `parts`.
    static func lvCat(_ parts: [[UInt8]]) -> [UInt8] { parts.flatMap(lengthPrefixed) }
}

/// What both sides derive from the intermediate key once CPace has run.
struct PairingKeys {
    /// Proves the receiver knew the code.
    let receiverConfirmation: [UInt8]
    /// Proves the sender knew the code.
    let senderConfirmation: [UInt8]
    /// Authenticates the receiver's final answer.
    let doneKey: [UInt8]
    /// The long-term pairing secret both store.
    let pairingSecret: [UInt8]

    /// Derives the keys from the intermediate key, the session id and the static X25519 secret of
    /// the two identities (so the stored secret is bound to both key pairs as well as the code).
    init(
        intermediateKey: [UInt8], sid: [UInt8], staticSecret: [UInt8], senderPublicKey: [UInt8],
        receiverPublicKey: [UInt8]
    ) {
        func mac(_ label: String) -> [UInt8] {
            let key = HKDFSHA256.deriveKey(
                inputKeyMaterial: intermediateKey, salt: sid, info: Array("mouse3d pair \(label)".utf8), count: 32)
            return HMACSHA256.authenticationCode(for: Array(label.utf8), key: key)
        }
        receiverConfirmation = mac("confirm receiver")
        senderConfirmation = mac("confirm sender")
        doneKey = HKDFSHA256.deriveKey(
            inputKeyMaterial: intermediateKey, salt: sid, info: Array("mouse3d pair done".utf8), count: 32)
        pairingSecret = HKDFSHA256.deriveKey(
            inputKeyMaterial: intermediateKey + staticSecret, salt: sid,
            info: Array("mouse3d pairing secret v1".utf8) + senderPublicKey + receiverPublicKey, count: 32)
    }

    /// The tag of the receiver's final status byte.
    func doneTag(status: UInt8, sid: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(for: sid + [status], key: doneKey)
    }
}
