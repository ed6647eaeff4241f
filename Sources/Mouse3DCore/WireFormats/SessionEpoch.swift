/// How a sender numbers its runs with one receiver (the epoch of its sealed datagrams): each run
/// takes the next number after the stored one, and never less than the seconds since 2025-01-01 by
/// the wall clock. The clock floor keeps epochs rising when the stored number is lost (a deleted or
/// restored state file), so a receiver never sees an old epoch come back for a new stream; the
/// stored number keeps them rising when the clock is set back.
public enum SessionEpoch {
    /// 2025-01-01T00:00:00Z, in Unix seconds.
    public static let clockOrigin: UInt64 = 1_735_689_600

    /// The epoch for a new run after `stored`, at `wallNanoseconds` (Unix time); nil once the
    /// 32-bit space is used up (pair again).
    public static func next(after stored: UInt32, wallNanoseconds: UInt64) -> UInt32? {
        guard stored < UInt32.max else { return nil }
        let seconds = wallNanoseconds / 1_000_000_000
        let floor = seconds > clockOrigin ? UInt32(clamping: seconds - clockOrigin) : 0
        return max(stored + 1, floor)
    }
}
