extension TCPStream {
    /// Reads a connection's waiting bytes a few reads at a time: at most `reads` reads and `budget`
    /// bytes in all per wake-up (the loop is level-triggered and calls again while more waits; a
    /// trickle of tiny segments or TLS records costs a few reads, not one per byte), so that one
    /// flooding connection cannot hold the loop. `read` reads into the part of `chunk` it is given
    /// (the socket itself, or TLS over it); each read's bytes go to `take`, which returns false once
    /// the connection is gone. False when the peer closed or the read failed (the caller then closes
    /// the connection), true otherwise.
    public static func readWithinBudget(
        into chunk: inout [UInt8], budget: Int, reads: Int, read: (UnsafeMutableRawBufferPointer) -> ReadOutcome,
        take: (ArraySlice<UInt8>) throws -> Bool
    ) rethrows -> Bool {
        var budget = budget
        for _ in 0..<reads where budget > 0 {
            let outcome = chunk.withUnsafeMutableBytes {
                read(UnsafeMutableRawBufferPointer(rebasing: $0.prefix(budget)))
            }
            switch outcome {
            case .wouldBlock: return true
            case .closed: return false
            case .bytes(let n):
                budget -= n
                guard try take(chunk[0..<n]) else { return true }
            }
        }
        return true
    }
}
