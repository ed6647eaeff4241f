import Mouse3DCore
import Testing

@Suite("Shortest float text")
struct ShortestFloatTests {
    /// Whether ``ShortestFloat`` writes exactly `value.description`.
    static func agrees(_ value: Float) -> Bool {
        ShortestFloat.text(value) == value.description
    }

    @Test(
        "The text of Float.description, byte for byte: zeros, signs, 1e-4 written out and 1e-5 with an exponent, 2^24 whole and beyond it with one, the smallest subnormal and the largest value, ties to even"
    )
    func namedValues() {
        let values: [Float] = [
            0, -0.0, 1, -1, 0.5, -0.25, 0.1, 0.2, 0.3, 1e-4, 1e-5, 9.999999e-5, 0.00012345, 16_777_216, 16_777_218,
            -16_777_216, 33_554_432, 1e10, 123.456, 1_234_567, 100, 0.015625, .pi, -.pi, .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            Float(bitPattern: 0x007F_FFFF), Float(bitPattern: 0x0000_0001), 8_388_608.5, 0.33333334, 2.7182817
        ]
        for v in values {
            #expect(ShortestFloat.text(v) == v.description, "bits \(String(v.bitPattern, radix: 16))")
        }
        // Spelled out, so the comparison above is not circular about what the texts are.
        #expect(ShortestFloat.text(1e-4) == "0.0001")
        #expect(ShortestFloat.text(1e-5) == "1e-05")
        #expect(ShortestFloat.text(16_777_216) == "16777216.0")
        #expect(ShortestFloat.text(16_777_218) == "1.6777218e+07")
        #expect(ShortestFloat.text(-0.0) == "-0.0")
        #expect(ShortestFloat.text(.greatestFiniteMagnitude) == "3.4028235e+38")
        #expect(ShortestFloat.text(.leastNonzeroMagnitude) == "1e-45")
    }

    @Test("Non-finite values: description's own text (nan, inf, -inf)")
    func nonFinite() {
        for v: Float in [.nan, -.nan, .infinity, -.infinity, .signalingNaN] {
            #expect(ShortestFloat.text(v) == v.description)
        }
    }

    @Test(
        "Every exponent, both signs, the mantissas at its ends and 1500 spread over it (about 770,000 values): the text of description"
    )
    func everyExponent() {
        var differ: [String] = []
        for exponent: UInt32 in 0...254 {
            var mantissas: [UInt32] = [0, 1, 2, 3, 4, 5, 0x40_0000, 0x7F_FFFD, 0x7F_FFFE, 0x7F_FFFF]
            var m: UInt32 = 7919
            for _ in 0..<1500 {
                mantissas.append(m & 0x7F_FFFF)
                m = m &* 1_103_515_245 &+ 12345
            }
            for mantissa in mantissas {
                for sign: UInt32 in [0, 1] {
                    let v = Float(bitPattern: sign << 31 | exponent << 23 | mantissa)
                    if !Self.agrees(v) && differ.count < 10 {
                        differ.append(
                            "\(String(v.bitPattern, radix: 16)): \(ShortestFloat.text(v)) for \(v.description)")
                    }
                }
            }
        }
        #expect(differ.isEmpty, "\(differ)")
    }

    @Test("Attitudes as a receiver prints them: every 1021st float in ±2π, the text of description")
    func attitudeRange() {
        var differ = 0
        var checked = 0
        var bits = (-2 * Float.pi).bitPattern
        // Negative floats from -2π up to -0, then positives from 0 to 2π: counted as bit patterns.
        while bits > 0x8000_0000 {
            if !Self.agrees(Float(bitPattern: bits)) { differ += 1 }
            checked += 1
            bits -= 1021
        }
        bits = 0
        while bits < (2 * Float.pi).bitPattern {
            if !Self.agrees(Float(bitPattern: bits)) { differ += 1 }
            checked += 1
            bits += 1021
        }
        #expect(checked > 2_000_000 && differ == 0, "\(differ) of \(checked) differ")
    }

    @Test("The power-of-five tables: their first entries as Ryū's paper gives them")
    func tables() {
        // 2^59 + 1, ⌊2^61 / 5⌋ + 1, ⌊2^63 / 25⌋ + 1; 2^60, 5 × 2^58, 25 × 2^56.
        #expect(
            ShortestFloat.inverseFivePowers.prefix(3) == [
                0x0800_0000_0000_0001, 0x0666_6666_6666_6667, 0x051E_B851_EB85_1EB9
            ])
        #expect(
            ShortestFloat.fivePowers.prefix(3) == [0x1000_0000_0000_0000, 0x1400_0000_0000_0000, 0x1900_0000_0000_0000])
        #expect(ShortestFloat.inverseFivePowers.count == 31 && ShortestFloat.fivePowers.count == 48)
        // The written-out tables are their definitions'.
        #expect(ShortestFloat.inverseFivePowers == ShortestFloat.computedInverseFivePowers())
        #expect(ShortestFloat.fivePowers == ShortestFloat.computedFivePowers())
    }
}
