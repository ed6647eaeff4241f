import CSodium
import Mouse3DCore

/// The AEAD that seals frames, through libsodium, working in place on caller-owned buffers (no
/// allocation per datagram) with the key schedule computed once per key: ChaCha20-Poly1305 with a
/// 96-bit nonce (RFC 8439), or AES-256-GCM where the CPU has AES-NI and PCLMUL. Both are the
/// standard algorithms swift-crypto's `ChaChaPoly` and `AES.GCM` implement (the tests check that
/// each opens what the other seals); swift-crypto's generic `Data` API costs about 6 µs a call on
/// the project's machines, libsodium here 0.7 µs (ChaCha20-Poly1305) or 0.2 µs (AES-256-GCM).
public final class FrameCipher {
    /// The algorithm.
    public let algorithm: SealingAlgorithm
    private let key: UnsafeMutableRawBufferPointer
    /// AES-256-GCM's expanded key (aligned as libsodium asks), or nil.
    private let aesState: UnsafeMutableRawPointer?

    private static var ready: Bool { Sodium.ready }

    /// Whether this CPU can run AES-256-GCM (libsodium needs AES-NI and PCLMUL); asked once.
    public static let aes256GCMAvailable: Bool = ready && crypto_aead_aes256gcm_is_available() == 1

    /// A cipher for `algorithm` under `key` (32 bytes). AES-256-GCM must be available.
    public init(algorithm: SealingAlgorithm, key: [UInt8]) {
        precondition(FrameCipher.ready && key.count == 32, "a 32-byte key")
        self.algorithm = algorithm
        self.key = .allocate(byteCount: 32, alignment: 16)
        self.key.copyBytes(from: key)
        switch algorithm {
        case .chacha20Poly1305:
            aesState = nil
        case .aes256GCM:
            precondition(FrameCipher.aes256GCMAvailable, "AES-256-GCM needs AES-NI")
            let state = UnsafeMutableRawPointer.allocate(
                byteCount: Int(crypto_aead_aes256gcm_statebytes()), alignment: 16)
            _ = crypto_aead_aes256gcm_beforenm(
                state.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self),
                self.key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            aesState = state
        }
    }

    deinit {
        sodium_memzero(key.baseAddress, 32)
        key.deallocate()
        if let aesState {
            sodium_memzero(aesState, Int(crypto_aead_aes256gcm_statebytes()))
            aesState.deallocate()
        }
    }

    /// Encrypts `plaintext` into `ciphertext` (same length, not empty) and writes the 16-byte tag,
    /// authenticating `associatedData` too. `nonce` is 12 bytes.
    public func seal(
        nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) {
        precondition(nonce.count == 12 && tag.count == 16 && ciphertext.count == plaintext.count && !plaintext.isEmpty)
        let c = ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let t = tag.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let m = plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let n = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let a = associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var tagLength: UInt64 = 0
        if let aesState {
            _ = crypto_aead_aes256gcm_encrypt_detached_afternm(
                c, t, &tagLength, m, UInt64(plaintext.count), a, UInt64(associatedData.count), nil, n,
                aesState.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self))
        } else {
            _ = crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                c, t, &tagLength, m, UInt64(plaintext.count), a, UInt64(associatedData.count), nil, n,
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Verifies `tag` over `ciphertext` and `associatedData` and, only if it verifies, decrypts into
    /// `plaintext` (same length). Returns whether it verified (compared in constant time).
    public func open(
        nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        precondition(nonce.count == 12 && plaintext.count == ciphertext.count && !ciphertext.isEmpty)
        guard tag.count == 16 else { return false }
        let m = plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let c = ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let t = tag.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let n = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let a = associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if let aesState {
            return crypto_aead_aes256gcm_decrypt_detached_afternm(
                m, nil, c, UInt64(ciphertext.count), t, a, UInt64(associatedData.count), n,
                aesState.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self)) == 0
        }
        return crypto_aead_chacha20poly1305_ietf_decrypt_detached(
            m, nil, c, UInt64(ciphertext.count), t, a, UInt64(associatedData.count), n,
            key.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
    }
}
