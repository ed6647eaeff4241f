import CSodium

/// The ristretto255 prime-order group (libsodium), for the pairing PAKE (CPace). Elements and scalars
/// are 32-byte strings; nothing here keeps secrets beyond the arrays the caller holds.
public enum Ristretto255 {
    /// Bytes in an encoded element.
    public static let elementBytes = Int(crypto_core_ristretto255_BYTES)
    /// Bytes in a scalar.
    public static let scalarBytes = Int(crypto_core_ristretto255_SCALARBYTES)
    /// Bytes of uniform input that ``element(fromUniform:)`` maps to an element.
    public static let uniformBytes = Int(crypto_core_ristretto255_HASHBYTES)

    private static var ready: Bool { Sodium.ready }

    /// Maps 64 uniformly random bytes (a hash output) to a group element with the one-way map of
    /// RFC 9496 (no one learns a discrete logarithm of the result).
    public static func element(fromUniform bytes: [UInt8]) -> [UInt8] {
        precondition(ready && bytes.count == uniformBytes, "ristretto255: 64 uniform bytes expected")
        var out = [UInt8](repeating: 0, count: elementBytes)
        _ = crypto_core_ristretto255_from_hash(&out, bytes)
        return out
    }

    /// A uniformly random non-zero scalar.
    public static func randomScalar() -> [UInt8] {
        precondition(ready, "libsodium failed to initialise")
        var out = [UInt8](repeating: 0, count: scalarBytes)
        crypto_core_ristretto255_scalar_random(&out)
        return out
    }

    /// `scalar · element`, or `nil` when `element` is not a valid encoding or the result is the
    /// identity (the checks CPace's scalar_mult_vfy asks for).
    public static func multiply(_ scalar: [UInt8], _ element: [UInt8]) -> [UInt8]? {
        precondition(ready && scalar.count == scalarBytes)
        guard element.count == elementBytes else { return nil }
        var out = [UInt8](repeating: 0, count: elementBytes)
        guard crypto_scalarmult_ristretto255(&out, scalar, element) == 0 else { return nil }
        return out
    }

    /// Whether `bytes` is the canonical encoding of a group element.
    public static func isValidElement(_ bytes: [UInt8]) -> Bool {
        bytes.count == elementBytes && ready && crypto_core_ristretto255_is_valid_point(bytes) == 1
    }
}
