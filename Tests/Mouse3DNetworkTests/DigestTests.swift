import Crypto
import Mouse3DCore
import Mouse3DLinux
import Testing

/// The product's hashes, MACs, HKDF and X25519 (libsodium, and SHA-1 in Core) against swift-crypto,
/// an independent implementation that stays a test dependency only, and against the RFCs' vectors.
@Suite("Digests, HKDF and X25519 agree with swift-crypto and the RFCs")
struct DigestTests {
    static func hex(_ text: String) -> [UInt8] { Hexadecimal.decode(text)! }

    /// Messages of every length around the 64- and 128-byte block boundaries, and some long ones.
    static var messages: [[UInt8]] {
        var generator = SystemRandomNumberGenerator()
        return (Array(0...140) + [255, 256, 1000, 4097]).map { n in
            (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
    }

    @Test("SHA-256, SHA-512 and SHA-1 equal swift-crypto's for 145 message lengths")
    func hashes() {
        for m in Self.messages {
            #expect(Digest.sha256.hash(m) == Array(SHA256.hash(data: m)), "SHA-256 of \(m.count) bytes")
            #expect(Digest.sha512.hash(m) == Array(SHA512.hash(data: m)), "SHA-512 of \(m.count) bytes")
            #expect(SHA1.hash(m) == Array(Insecure.SHA1.hash(data: m)), "SHA-1 of \(m.count) bytes")
        }
    }

    @Test("SHA-1: FIPS 180 vectors and RFC 6455's handshake example")
    func sha1Vectors() {
        #expect(SHA1.hash([UInt8]()) == Self.hex("da39a3ee5e6b4b0d3255bfef95601890afd80709"))
        #expect(SHA1.hash(Array("abc".utf8)) == Self.hex("a9993e364706816aba3e25717850c26c9cd0d89d"))
        #expect(
            SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == Self.hex("84983e441c3bd26ebaae4aa1f95129e5e54670f1"))
        let accept = Base64.encode(SHA1.hash(Array(("dGhlIHNhbXBsZSBub25jZQ==" + WebSocketFrame.handshakeGUID).utf8)))
        #expect(accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test(
        "HMAC-SHA256 equals swift-crypto's for keys of 0 to 200 bytes", arguments: [0, 1, 16, 32, 63, 64, 65, 131, 200])
    func hmac(keyLength: Int) {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for m in Self.messages.prefix(80) {
            #expect(
                HMACSHA256.authenticationCode(for: m, key: key)
                    == Array(HMAC<SHA256>.authenticationCode(for: m, using: SymmetricKey(data: key))))
        }
    }

    @Test("HMAC-SHA256: RFC 4231 test case 2")
    func hmacVector() {
        #expect(
            HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
                == Self.hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
    }

    @Test("HKDF-SHA256 equals swift-crypto's, with and without salt, for 1 to 100 bytes")
    func hkdf() {
        var generator = SystemRandomNumberGenerator()
        for count in [1, 16, 31, 32, 33, 64, 65, 100] {
            for saltLength in [0, 13, 32, 80] {
                let ikm = (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let salt = (0..<saltLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let info = Array("mouse3d test \(count)".utf8)
                let ours = HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, count: count)
                let theirs =
                    saltLength == 0
                    ? HKDF<SHA256>.deriveKey(
                        inputKeyMaterial: SymmetricKey(data: ikm), info: info, outputByteCount: count)
                    : HKDF<SHA256>.deriveKey(
                        inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count)
                #expect(ours == theirs.withUnsafeBytes { Array($0) }, "\(count) bytes, \(saltLength)-byte salt")
            }
        }
    }

    @Test("HKDF-SHA256: RFC 5869 test case 1")
    func hkdfVector() {
        let okm = HKDFSHA256.deriveKey(
            inputKeyMaterial: [UInt8](repeating: 0x0B, count: 22), salt: Self.hex("000102030405060708090a0b0c"),
            info: Self.hex("f0f1f2f3f4f5f6f7f8f9"), count: 42)
        #expect(okm == Self.hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    @Test("X25519: the same public keys and shared secrets as swift-crypto, both ways")
    func x25519() throws {
        for _ in 0..<20 {
            let ours = X25519PrivateKey()
            let theirs = Curve25519.KeyAgreement.PrivateKey()
            // The same private bytes give the same public key in both libraries (stored identities stay valid).
            let mirrored = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: ours.rawRepresentation)
            #expect(Array(mirrored.publicKey.rawRepresentation) == ours.publicKey)
            let secret = try #require(ours.sharedSecret(with: Array(theirs.publicKey.rawRepresentation)))
            let expected = try theirs.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: ours.publicKey))
                .withUnsafeBytes { Array($0) }
            #expect(secret == expected)
        }
    }

    @Test("X25519: RFC 7748 §6.1, and a low-order or short public key is refused")
    func x25519Vector() throws {
        let alice = try #require(
            X25519PrivateKey(
                rawRepresentation: Self.hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")))
        let bob = try #require(
            X25519PrivateKey(
                rawRepresentation: Self.hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")))
        #expect(alice.publicKey == Self.hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(bob.publicKey == Self.hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let shared = Self.hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(alice.sharedSecret(with: bob.publicKey) == shared)
        #expect(bob.sharedSecret(with: alice.publicKey) == shared)
        #expect(
            alice.sharedSecret(with: [UInt8](repeating: 0, count: 32)) == nil, "the zero point gives an all-zero secret"
        )
        #expect(alice.sharedSecret(with: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(X25519PrivateKey(rawRepresentation: [1, 2, 3]) == nil)
    }
}
