import CSodium

/// Comparisons whose time does not depend on where two secrets differ (MACs, confirmations).
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; different lengths are unequal (length is not secret).
    /// The corresponding C call is libsodium's `sodium_memcmp`.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }
}
