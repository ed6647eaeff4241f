/// The shortest decimal text that reads back as the same `Float`, byte for byte the text of
/// `Float.description` (its digits, its choice between "0.0001" and "1e-05", "16777216.0" and
/// "1.6777218e+07", its ".0" on whole numbers), written straight into memory: no string is made.
///
/// Why not `description`: a receiver printing jsonl writes three of these a frame, and
/// `description` (a string made, then copied out) was 1,174 of a plain receiver's 6,831
/// instructions a frame at 50,000 frames/s (callgrind, `Tools/perf/receive-instructions.sh`).
///
/// The digits are found as Ulf Adams' Ryū finds them for binary32 ("Ryū: fast float-to-string
/// conversion", PLDI 2018): the value's rounding interval scaled by a power of ten in 32-bit
/// fixed point, digits removed while the interval still tells them apart, the last one rounded
/// to nearest (ties to even). Among the shortest texts that read back, that is the closest, as
/// Swift's own promises; the two agree on every one of the 2³² bit patterns
/// (`Tools/float/check-shortest-float.sh`, about four minutes of a core; ShortestFloatTests checks
/// every exponent and the attitudes' range). Non-finite values are left to `description`.
public enum ShortestFloat {
    /// The most bytes a finite value's text takes: "-1.00459735e-16" (nine digits) is 15.
    public static let maximumLength = 16

    /// Writes `value`'s text at `destination` (room for ``maximumLength`` bytes); returns how many.
    @inlinable
    public static func write(_ value: Float, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else { return copyDescription(value, to: destination) }
        return writeFinite(value.bitPattern, to: destination)
    }

    /// `value`'s text as a string (tests, and callers that want one).
    public static func text(_ value: Float) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            let n = write(value, to: buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<n]), as: UTF8.self)
        }
    }

    @usableFromInline
    static func copyDescription(_ value: Float, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var text = value.description
        return text.withUTF8 { utf8 in
            let n = min(utf8.count, maximumLength)
            destination.update(from: utf8.baseAddress!, count: n)
            return n
        }
    }

    @usableFromInline
    static func writeFinite(_ bits: UInt32, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if bits >> 31 != 0 {
            p[0] = UInt8(ascii: "-")
            n = 1
        }
        let mantissa = bits & 0x7F_FFFF
        let exponent = (bits >> 23) & 0xFF
        if exponent == 0 && mantissa == 0 {
            p[n] = UInt8(ascii: "0")
            p[n + 1] = UInt8(ascii: ".")
            p[n + 2] = UInt8(ascii: "0")
            return n + 3
        }
        let (digits, e10) = shortestDecimal(mantissa: mantissa, exponent: exponent)
        // Swift writes whole numbers up to 2^24 (every integer a Float holds exactly) without an
        // exponent, anything larger with one.
        let forceExponential = exponent > 151 || (exponent == 151 && mantissa != 0)
        let count = digitCount(digits)
        let first = Int(e10) + count - 1  // the power of ten of the first digit
        if first < -4 || forceExponential {
            // "1.2345e-05", "3e+38"
            writeDigits(digits, count: count, to: p + n + 1)
            p[n] = p[n + 1]
            var end = n + 1
            if count > 1 {
                p[n + 1] = UInt8(ascii: ".")
                end = n + 1 + count
            }
            p[end] = UInt8(ascii: "e")
            p[end + 1] = first < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            let magnitude = first < 0 ? -first : first  // at most 45
            p[end + 2] = UInt8(ascii: "0") + UInt8(magnitude / 10)
            p[end + 3] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            return end + 4
        } else if first < 0 {
            // "0.00012345"
            p[n] = UInt8(ascii: "0")
            p[n + 1] = UInt8(ascii: ".")
            let zeros = -first - 1
            for i in 0..<zeros { p[n + 2 + i] = UInt8(ascii: "0") }
            writeDigits(digits, count: count, to: p + n + 2 + zeros)
            return n + 2 + zeros + count
        } else if first + 1 < count {
            // "123.45": the whole part moved one to the left, the point after it
            let whole = first + 1
            writeDigits(digits, count: count, to: p + n + 1)
            for i in 0..<whole { p[n + i] = p[n + i + 1] }
            p[n + whole] = UInt8(ascii: ".")
            return n + 1 + count
        } else {
            // "1200.0"
            writeDigits(digits, count: count, to: p + n)
            let zeros = first + 1 - count
            for i in 0..<zeros { p[n + count + i] = UInt8(ascii: "0") }
            p[n + count + zeros] = UInt8(ascii: ".")
            p[n + count + zeros + 1] = UInt8(ascii: "0")
            return n + count + zeros + 2
        }
    }

    /// Decimal digits of `value` (at most nine here).
    @inline(__always)
    static func digitCount(_ value: UInt32) -> Int {
        if value >= 10_000 {
            if value >= 10_000_000 { return value >= 1_000_000_000 ? 10 : value >= 100_000_000 ? 9 : 8 }
            return value >= 1_000_000 ? 7 : value >= 100_000 ? 6 : 5
        }
        return value >= 1000 ? 4 : value >= 100 ? 3 : value >= 10 ? 2 : 1
    }

    /// `count` decimal digits of `value`, the last at `p + count - 1`.
    @inline(__always)
    static func writeDigits(_ value: UInt32, count: Int, to p: UnsafeMutablePointer<UInt8>) {
        DecimalDigits.write(UInt64(value), count: count, to: p)
    }

    // MARK: The digits (Ryū for binary32)

    /// The bits of the scaled inverse powers of five (``inverseFivePowers``) beyond their magnitude.
    static let inverseBits: Int32 = 59
    /// The bits kept of each power of five (``fivePowers``).
    static let fiveBits: Int32 = 61

    /// ⌊2^(bits(5^i) − 1 + 59) / 5^i⌋ + 1 for i in 0..<31: 1/5^i in 64-bit fixed point, rounded up.
    /// Written out (``computedInverseFivePowers()`` makes them, and a test compares): a table
    /// computed at first use is reached through a lazy global's `swift_once` on every access, and
    /// each float printed reads one or two.
    public static let inverseFivePowers: [UInt64] = [
        0x0800_0000_0000_0001, 0x0666_6666_6666_6667, 0x051E_B851_EB85_1EB9,
        0x0418_9374_BC6A_7EFA, 0x068D_B8BA_C710_CB2A, 0x053E_2D62_38DA_3C22,
        0x0431_BDE8_2D7B_634E, 0x06B5_FCA6_AF2B_D216, 0x055E_63B8_8C23_0E78,
        0x044B_82FA_09B5_A52D, 0x06DF_37F6_75EF_6EAE, 0x057F_5FF8_5E59_2558,
        0x0465_E660_4B7A_8447, 0x0709_709A_125D_A071, 0x05A1_26E1_A84A_E6C1,
        0x0480_EBE7_B9D5_8567, 0x0734_ACA5_F622_6F0B, 0x05C3_BD51_91B5_25A3,
        0x049C_9774_7490_EAE9, 0x0760_F253_EDB4_AB0E, 0x05E7_2843_2490_88D8,
        0x04B8_ED02_83A6_D3E0, 0x078E_4804_05D7_B966, 0x060B_6CD0_04AC_9452,
        0x04D5_F0A6_6A23_A9DB, 0x07BC_B43D_769F_762B, 0x0630_9031_2BB2_C4EF,
        0x04F3_A68D_BC8F_03F3, 0x07EC_3DAF_9418_0651, 0x0656_97BF_A9AC_D1DA,
        0x0512_12FF_BAF0_A7E2
    ]

    /// 5^i cut to its top 61 bits (shifted up when shorter), for i in 0..<48; written out as
    /// ``inverseFivePowers`` is (``computedFivePowers()``).
    public static let fivePowers: [UInt64] = [
        0x1000_0000_0000_0000, 0x1400_0000_0000_0000, 0x1900_0000_0000_0000,
        0x1F40_0000_0000_0000, 0x1388_0000_0000_0000, 0x186A_0000_0000_0000,
        0x1E84_8000_0000_0000, 0x1312_D000_0000_0000, 0x17D7_8400_0000_0000,
        0x1DCD_6500_0000_0000, 0x12A0_5F20_0000_0000, 0x1748_76E8_0000_0000,
        0x1D1A_94A2_0000_0000, 0x1230_9CE5_4000_0000, 0x16BC_C41E_9000_0000,
        0x1C6B_F526_3400_0000, 0x11C3_7937_E080_0000, 0x1634_5785_D8A0_0000,
        0x1BC1_6D67_4EC8_0000, 0x1158_E460_913D_0000, 0x15AF_1D78_B58C_4000,
        0x1B1A_E4D6_E2EF_5000, 0x10F0_CF06_4DD5_9200, 0x152D_02C7_E14A_F680,
        0x1A78_4379_D99D_B420, 0x108B_2A2C_2802_9094, 0x14AD_F4B7_3203_34B9,
        0x19D9_71E4_FE84_01E7, 0x1027_E72F_1F12_8130, 0x1431_E0FA_E6D7_217C,
        0x193E_5939_A08C_E9DB, 0x1F8D_EF88_08B0_2452, 0x13B8_B5B5_056E_16B3,
        0x18A6_E322_46C9_9C60, 0x1ED0_9BEA_D87C_0378, 0x1342_6172_C74D_822B,
        0x1812_F9CF_7920_E2B6, 0x1E17_B843_5769_1B64, 0x12CE_D32A_16A1_B11E,
        0x1782_87F4_9C4A_1D66, 0x1D63_29F1_C35C_A4BF, 0x125D_FA37_1A19_E6F7,
        0x16F5_78C4_E0A0_60B5, 0x1CB2_D6F6_18C8_78E3, 0x11EF_C659_CF7D_4B8D,
        0x166B_B7F0_435C_9E71, 0x1C06_A5EC_5433_C60D, 0x1184_27B3_B4A0_5BC8
    ]

    /// ``inverseFivePowers`` from their definition.
    public static func computedInverseFivePowers() -> [UInt64] {
        (0..<31).map { i in
            let shift = Int(pow5Bits(Int32(i)) - 1 + inverseBits)
            let five = fivePower(i)
            // 2^128 does not fit; 5^i never divides it, so (2^128 − 1) / 5^i has the same floor.
            let numerator: UInt128 = shift >= 128 ? .max : UInt128(1) << shift
            return UInt64(numerator / five) + 1
        }
    }

    /// ``fivePowers`` from their definition.
    public static func computedFivePowers() -> [UInt64] {
        (0..<48).map { i in
            let shift = Int(pow5Bits(Int32(i)) - fiveBits)
            let five = fivePower(i)
            return UInt64(shift >= 0 ? five >> shift : five << -shift)
        }
    }

    /// 5^i exactly (i ≤ 55 fits in 128 bits).
    static func fivePower(_ i: Int) -> UInt128 {
        var value: UInt128 = 1
        for _ in 0..<i { value &*= 5 }
        return value
    }

    /// The bits of 5^e (1 for e = 0), for 0 ≤ e ≤ 3528.
    @inline(__always)
    static func pow5Bits(_ e: Int32) -> Int32 { Int32(truncatingIfNeeded: (UInt32(e) &* 1_217_359) >> 19) &+ 1 }

    /// ⌊log10(2^e)⌋ for 0 ≤ e ≤ 1650.
    @inline(__always)
    static func log10Pow2(_ e: Int32) -> Int32 { Int32(truncatingIfNeeded: (UInt32(e) &* 78_913) >> 18) }

    /// ⌊log10(5^e)⌋ for 0 ≤ e ≤ 2620.
    @inline(__always)
    static func log10Pow5(_ e: Int32) -> Int32 { Int32(truncatingIfNeeded: (UInt32(e) &* 732_923) >> 20) }

    @inline(__always)
    static func isMultipleOfPowerOf5(_ value: UInt32, _ p: Int32) -> Bool {
        var v = value
        var count: Int32 = 0
        while v != 0 && v % 5 == 0 {
            v /= 5
            count += 1
        }
        return count >= p
    }

    @inline(__always)
    static func isMultipleOfPowerOf2(_ value: UInt32, _ p: Int32) -> Bool {
        value & ((UInt32(1) << UInt32(p)) &- 1) == 0
    }

    /// (m × factor) >> shift, for shift > 32, with the product's low 32 bits dropped first.
    @inline(__always)
    static func multiplyShift(_ m: UInt32, _ factor: UInt64, _ shift: Int32) -> UInt32 {
        let low = UInt64(m) &* (factor & 0xFFFF_FFFF)
        let high = UInt64(m) &* (factor >> 32)
        let sum = (low >> 32) &+ high
        return UInt32(truncatingIfNeeded: sum >> UInt64(shift &- 32))
    }

    /// The shortest digits (as an integer) and their power of ten that read back as the value with
    /// these fields (finite, not zero).
    @usableFromInline
    static func shortestDecimal(mantissa: UInt32, exponent: UInt32) -> (digits: UInt32, exponent: Int32) {
        // value = m2 × 2^e2; the interval's ends and the value, ×4 so that halves are whole.
        let e2: Int32
        let m2: UInt32
        if exponent == 0 {
            e2 = 1 - 127 - 23 - 2
            m2 = mantissa
        } else {
            e2 = Int32(exponent) - 127 - 23 - 2
            m2 = (1 << 23) | mantissa
        }
        let acceptBounds = m2 & 1 == 0  // an even value owns its interval's ends (ties to even)
        let mv = 4 &* m2
        let mp = 4 &* m2 &+ 2
        // The interval below a power of two is half as wide.
        let mmShift: UInt32 = mantissa != 0 || exponent <= 1 ? 1 : 0
        let mm = 4 &* m2 &- 1 &- mmShift

        var vr: UInt32
        var vp: UInt32
        var vm: UInt32
        var e10: Int32
        var vmIsTrailingZeros = false
        var vrIsTrailingZeros = false
        var lastRemovedDigit: UInt32 = 0
        if e2 >= 0 {
            let q = log10Pow2(e2)
            e10 = q
            let k = inverseBits + pow5Bits(q) - 1
            let i = -e2 + q + k
            let factor = inverseFivePowers[Int(q)]
            vr = multiplyShift(mv, factor, i)
            vp = multiplyShift(mp, factor, i)
            vm = multiplyShift(mm, factor, i)
            if q != 0 && (vp &- 1) / 10 <= vm / 10 {
                // The loop below may not run: the digit it would have removed is needed anyway.
                let l = inverseBits + pow5Bits(q - 1) - 1
                lastRemovedDigit = multiplyShift(mv, inverseFivePowers[Int(q - 1)], -e2 + q - 1 + l) % 10
            }
            if q <= 9 {
                // At most one of mp, mv and mm is a multiple of 5.
                if mv % 5 == 0 {
                    vrIsTrailingZeros = isMultipleOfPowerOf5(mv, q)
                } else if acceptBounds {
                    vmIsTrailingZeros = isMultipleOfPowerOf5(mm, q)
                } else if isMultipleOfPowerOf5(mp, q) {
                    vp &-= 1
                }
            }
        } else {
            let q = log10Pow5(-e2)
            e10 = q + e2
            let i = -e2 - q
            let k = pow5Bits(i) - fiveBits
            var j = q - k
            let factor = fivePowers[Int(i)]
            vr = multiplyShift(mv, factor, j)
            vp = multiplyShift(mp, factor, j)
            vm = multiplyShift(mm, factor, j)
            if q != 0 && (vp &- 1) / 10 <= vm / 10 {
                j = q - 1 - (pow5Bits(i + 1) - fiveBits)
                lastRemovedDigit = multiplyShift(mv, fivePowers[Int(i + 1)], j) % 10
            }
            if q <= 1 {
                // mv = 4 × m2 has at least two trailing zero bits; mp = mv + 2 one.
                vrIsTrailingZeros = true
                if acceptBounds {
                    vmIsTrailingZeros = mmShift == 1
                } else {
                    vp &-= 1
                }
            } else if q < 31 {
                vrIsTrailingZeros = isMultipleOfPowerOf2(mv, q - 1)
            }
        }

        // Remove digits while the interval's ends still differ in what is left.
        var removed: Int32 = 0
        /// Drops the last digit of the value and of the interval's ends, keeping the value's.
        func removeDigit() {
            lastRemovedDigit = vr % 10
            vr /= 10
            vp /= 10
            vm /= 10
            removed += 1
        }
        let output: UInt32
        if vmIsTrailingZeros || vrIsTrailingZeros {
            while vp / 10 > vm / 10 {
                vmIsTrailingZeros = vmIsTrailingZeros && vm % 10 == 0
                vrIsTrailingZeros = vrIsTrailingZeros && lastRemovedDigit == 0
                removeDigit()
            }
            if vmIsTrailingZeros {
                while vm % 10 == 0 {
                    vrIsTrailingZeros = vrIsTrailingZeros && lastRemovedDigit == 0
                    removeDigit()
                }
            }
            if vrIsTrailingZeros && lastRemovedDigit == 5 && vr % 2 == 0 {
                lastRemovedDigit = 4  // exactly …5000: to even
            }
            let roundUp = (vr == vm && (!acceptBounds || !vmIsTrailingZeros)) || lastRemovedDigit >= 5
            output = vr &+ (roundUp ? 1 : 0)
        } else {
            // Two digits at a time first, while the ends still differ in what is left (as Ryū's
            // binary64 code does): the loop of divisions was the hottest part of a printed frame.
            while vp / 100 > vm / 100 {
                lastRemovedDigit = vr % 100 / 10
                vr /= 100
                vp /= 100
                vm /= 100
                removed += 2
            }
            while vp / 10 > vm / 10 { removeDigit() }
            output = vr &+ (vr == vm || lastRemovedDigit >= 5 ? 1 : 0)
        }
        return (output, e10 + removed)
    }
}
