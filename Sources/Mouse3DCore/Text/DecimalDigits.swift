/// Decimal digits written two at a time from a table of the hundred pairs "00" to "99": half the
/// divisions of one digit at a time. The jsonl line's sequence, time and three floats are about 40
/// digits a frame; one at a time cost a sealed receiver about 300 instructions a frame more
/// (callgrind, `Tools/perf/receive-instructions.sh`: 7,430 against 7,124).
@usableFromInline
enum DecimalDigits {
    /// "00", "01", … "99", one after the other (a literal: no lazy global, no bounds check).
    @usableFromInline
    static let pairs: StaticString = """
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// How many digits `value` has (1 for 0).
    @inlinable @inline(__always)
    static func count(_ value: UInt64) -> Int {
        var count = 1
        var v = value
        while v >= 100 {
            v /= 100
            count &+= 2
        }
        return v >= 10 ? count &+ 1 : count
    }

    /// The last `count` digits of `value` (zeros in front where it has fewer), the last at
    /// `p + count - 1`.
    @inlinable @inline(__always)
    static func write(_ value: UInt64, count: Int, to p: UnsafeMutablePointer<UInt8>) {
        let table = pairs.utf8Start
        var v = value
        var i = count
        while i >= 2 {
            let pair = Int(truncatingIfNeeded: v % 100) &* 2
            v /= 100
            i &-= 2
            p[i] = table[pair]
            p[i &+ 1] = table[pair &+ 1]
        }
        if i == 1 { p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10) }
    }
}
