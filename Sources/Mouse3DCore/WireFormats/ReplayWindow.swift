/// A sliding anti-replay window over 64-bit counters, in the style of IPsec (RFC 4303 §3.4.3) and
/// WireGuard: a counter is accepted once, if it is newer than anything seen or within the last
/// ``size`` counters and not yet seen. Check it only after the datagram's tag has verified, so that
/// forged counters cannot move the window.
///
/// The marks live in a ring of 64-bit words indexed by `counter / 64` (as in WireGuard), so moving
/// the window on by one costs nothing and by more clears only the words passed over.
public struct ReplayWindow: Sendable, Equatable {
    /// How many counters behind the newest are still accepted (a multiple of 64).
    public let size: UInt64
    /// The newest counter accepted, if any.
    public private(set) var newest: UInt64?
    /// Bit `c % 64` of word `(c / 64) % words` marks counter c as seen (one spare word, so that a
    /// whole `size` behind the newest is always held).
    @usableFromInline var bits: [UInt64]

    /// A window of `size` counters (rounded up to a multiple of 64; at least 64).
    public init(size: UInt64 = 2048) {
        let words = Int(max(1, (size + 63) / 64))
        self.size = UInt64(words) * 64
        bits = [UInt64](repeating: 0, count: words + 1)
    }

    @inlinable
    func word(_ counter: UInt64) -> Int { Int((counter / 64) % UInt64(bits.count)) }

    /// Whether `counter` is acceptable, without changing anything. (Inlinable: a receiver asks for
    /// every sealed datagram, and a call across modules copied the window, retaining its words.)
    @inlinable
    public func wouldAccept(_ counter: UInt64) -> Bool {
        guard let newest else { return true }
        if counter > newest { return true }
        guard newest - counter < size else { return false }
        return bits[word(counter)] & (1 << (counter % 64)) == 0
    }

    /// Accepts `counter` if it is fresh (and remembers it); returns whether it was.
    public mutating func accept(_ counter: UInt64) -> Bool {
        guard wouldAccept(counter) else { return false }
        if let current = newest, counter > current {
            // Clear the words the window moves onto (all of them, at most, after a long jump).
            let from = current / 64
            let to = counter / 64
            if to > from {
                let passed = min(to - from, UInt64(bits.count))
                for step in 1...passed { bits[word((from + step) * 64)] = 0 }
            }
            newest = counter
        } else if newest == nil {
            newest = counter
        }
        bits[word(counter)] |= 1 << (counter % 64)
        return true
    }
}
