/// A sliding anti-replay window over 64-bit counters, in the style of IPsec (RFC 4303 §3.4.3) and
/// WireGuard: a counter is accepted once, if it is newer than anything seen or within the last
/// ``size`` counters and not yet seen. Check it only after the datagram's tag has verified, so that
/// forged counters cannot move the window.
public struct ReplayWindow: Sendable, Equatable {
    /// How many counters behind the newest are still accepted (a multiple of 64).
    public let size: UInt64
    /// The newest counter accepted, if any.
    public private(set) var newest: UInt64?
    /// Bit i of word i/64 marks counter `newest - i` as seen.
    private var bits: [UInt64]

    /// A window of `size` counters (rounded up to a multiple of 64; at least 64).
    public init(size: UInt64 = 2048) {
        let words = Int(max(1, (size + 63) / 64))
        self.size = UInt64(words) * 64
        bits = [UInt64](repeating: 0, count: words)
    }

    /// Whether `counter` is acceptable, without changing anything.
    public func wouldAccept(_ counter: UInt64) -> Bool {
        guard let newest else { return true }
        if counter > newest { return true }
        let age = newest - counter
        guard age < size else { return false }
        return bits[Int(age / 64)] & (1 << (age % 64)) == 0
    }

    /// Accepts `counter` if it is fresh (and remembers it); returns whether it was.
    public mutating func accept(_ counter: UInt64) -> Bool {
        guard wouldAccept(counter) else { return false }
        guard let current = newest else {
            newest = counter
            bits[0] = 1
            return true
        }
        if counter > current {
            shift(by: counter - current)
            newest = counter
            bits[0] |= 1
        } else {
            let age = current - counter
            bits[Int(age / 64)] |= 1 << (age % 64)
        }
        return true
    }

    /// Ages every mark by `distance` counters.
    private mutating func shift(by distance: UInt64) {
        guard distance < size else {
            for i in bits.indices { bits[i] = 0 }
            return
        }
        let words = Int(distance / 64), offset = distance % 64
        for i in stride(from: bits.count - 1, through: 0, by: -1) {
            let source = i - words
            var value: UInt64 = source >= 0 ? bits[source] << offset : 0
            if offset > 0, source - 1 >= 0 { value |= bits[source - 1] >> (64 - offset) }
            bits[i] = value
        }
    }
}
