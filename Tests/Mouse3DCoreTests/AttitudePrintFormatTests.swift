import Mouse3DCore
import Testing

@Suite("Printed attitude lines")
struct AttitudePrintFormatTests {
    static let update = AttitudeUpdate(
        stream: StreamLabel(sender: "127.0.0.1:5000", stream: "2a", description: "'deck' (127.0.0.1:5000) stream 2a"),
        sequence: 17, buttons: ButtonState(rawValue: 3), frame: AttitudeFrame(roll: 0.5, pitch: -0.25, yaw: 1),
        receivedNanoseconds: 0)

    @Test("jsonl: one object, every key, microseconds zero-padded to six digits")
    func jsonl() {
        let line = AttitudePrintFormat.jsonl.line(
            Self.update, wallNanoseconds: 1_700_000_000_004_056_789, secondText: "")
        #expect(
            line == #"{"sender":"127.0.0.1:5000","stream":"2a","seq":17,"time":1700000000.004056,"#
                + #""roll":0.5,"pitch":-0.25,"yaw":1.0,"buttons":3}"#)
    }

    @Test("jsonl appended to a buffer: what was there stays; zeros and the largest numbers are written whole")
    func jsonlAppended() {
        var u = Self.update
        u.sequence = .max
        u.buttons = ButtonState(rawValue: 0)
        var bytes = Array("before\n".utf8)
        AttitudePrintFormat.jsonl.append(u, wallNanoseconds: 5_000_000_000, secondText: "", to: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "before\n" + #"{"sender":"127.0.0.1:5000","stream":"2a","seq":18446744073709551615,"#
                + #""time":5.000000,"roll":0.5,"pitch":-0.25,"yaw":1.0,"buttons":0}"#)
    }

    @Test(
        "jsonl's whole numbers (two digits at a time) as Swift writes them: every sequence below 100,000, each power of ten and one either side, odd and even digit counts, microseconds padded"
    )
    func jsonlNumbers() {
        var values: [UInt64] = Array(0..<100_000)
        var power: UInt64 = 1
        for _ in 0..<20 {
            values += [power &- 1, power, power &+ 1]
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        values += [.max, .max - 1, 1 << 63, 12_345_678_901_234_567_890]
        var u = Self.update
        var mismatches = 0
        for v in values {
            u.sequence = v
            let wall = v % 4_000_000_000_000_000_000  // microseconds: every padding from none to six zeros
            let line = AttitudePrintFormat.jsonl.line(u, wallNanoseconds: wall, secondText: "")
            let micros = String(wall / 1000 % 1_000_000)
            let expected =
                #"{"sender":"127.0.0.1:5000","stream":"2a","seq":\#(v),"time":\#(wall / 1_000_000_000).\#(String(repeating: "0", count: 6 - micros.count) + micros),"#
                + #""roll":0.5,"pitch":-0.25,"yaw":1.0,"buttons":3}"#
            if line != expected {
                mismatches += 1
                if mismatches <= 5 { Issue.record("\(v): \(line), expected \(expected)") }
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(values.count) lines differ")
    }

    @Test(
        "jsonl: the longest line (largest sequence, time and buttons, the longest floats) whole, each float as description writes it"
    )
    func jsonlLongest() {
        var u = Self.update
        u.sequence = .max
        u.buttons = ButtonState(rawValue: .max)
        let longest = Float(bitPattern: 0xA4E7_A4F6)  // -1.00459735e-16: nine digits, fifteen bytes
        u.frame = AttitudeFrame(roll: longest, pitch: 1e-5, yaw: -16_777_218)
        let line = AttitudePrintFormat.jsonl.line(u, wallNanoseconds: .max, secondText: "")
        #expect(
            line == #"{"sender":"127.0.0.1:5000","stream":"2a","seq":18446744073709551615,"time":18446744073.709551,"#
                + #""roll":\#(longest.description),"pitch":1e-05,"yaw":-1.6777218e+07,"buttons":4294967295}"#)
        #expect(longest.description == "-1.00459735e-16")
    }

    @Test("text: the second given, the microseconds, the stream, degrees right-aligned, buttons in hex")
    func text() {
        let line = AttitudePrintFormat.text.line(
            Self.update, wallNanoseconds: 1_700_000_000_004_056_789, secondText: "2023-11-14T22:13:20")
        #expect(
            line == "2023-11-14T22:13:20.004056Z 'deck' (127.0.0.1:5000) stream 2a #17 roll   28.648° "
                + "pitch  -14.324° yaw   57.296° buttons 0x3")
    }

    @Test("text appended to a buffer: no buttons, no button text; the largest sequence and buttons written whole")
    func textAppended() {
        var u = Self.update
        u.buttons = ButtonState(rawValue: 0)
        u.frame = AttitudeFrame(roll: -.pi, pitch: 0, yaw: -0.000_001)
        var bytes = Array("before\n".utf8)
        AttitudePrintFormat.text.append(u, wallNanoseconds: 7_000_000_000, secondText: "S", to: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "before\nS.000000Z 'deck' (127.0.0.1:5000) stream 2a #17 roll -180.000° pitch    0.000° yaw    0.000°"
        )
        u.sequence = .max
        u.buttons = ButtonState(rawValue: .max)
        let line = AttitudePrintFormat.text.line(u, wallNanoseconds: 0, secondText: "S")
        #expect(
            line.contains(" #\(UInt64.max) ") && line.hasSuffix(" buttons 0x\(String(u.buttons.rawValue, radix: 16))"))
    }

    @Test(
        "text over 20,000 frames: second, microseconds, stream, sequence, each angle as fixed() writes it, buttons in hex; wide, tiny, negative, nan, beyond a frame's range"
    )
    func textLayout() {
        var generator = SplitMix64(seed: 0x7E47)
        var specials: [Float] = [
            0, -0, 0.000_008, -0.000_008, -0.000_009, 1e-30, -1e-30, .pi, -.pi, 2 * .pi, 17.45, -17.45, 1e3, -1e3,
            1_000.5, 1e10, -1e13, .greatestFiniteMagnitude, -.infinity, .infinity, .nan
        ]
        for _ in 0..<20_000 {
            let bits = UInt32(truncatingIfNeeded: generator.next())
            // Half uniform over the attitudes' range, half any bit pattern (every exponent).
            specials.append(
                bits & 1 == 0 ? Float(Double(bits >> 1) / Double(UInt32.max >> 1) * 8 - 4) : Float(bitPattern: bits))
        }
        func degrees(_ radians: Float) -> String { fixed(Double(radians) * 180 / .pi, 3, width: 8) + "°" }
        var u = Self.update
        for (i, value) in specials.enumerated() {
            let other = specials[(i * 7 + 3) % specials.count]
            u.frame = AttitudeFrame(roll: value, pitch: other, yaw: -value)
            u.buttons = ButtonState(rawValue: UInt32(truncatingIfNeeded: i * 2_654_435_761) & (i % 3 == 0 ? 0 : .max))
            u.sequence = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
            let wall = UInt64(i) &* 1_000_003_001
            let expected =
                "2026-11-29T19:20:00.\(String(wall / 1000 % 1_000_000).leftPadded(to: 6))Z "
                + "'deck' (127.0.0.1:5000) stream 2a #\(u.sequence) roll \(degrees(value)) pitch \(degrees(other)) "
                + "yaw \(degrees(-value))"
                + (u.buttons.isEmpty ? "" : " buttons 0x\(String(u.buttons.rawValue, radix: 16))")
            let line = AttitudePrintFormat.text.line(u, wallNanoseconds: wall, secondText: "2026-11-29T19:20:00")
            guard line == expected else {
                Issue.record("frame \(value), \(other): \(line) != \(expected)")
                return
            }
        }
    }

    @Test("fixed: rounding, signs, padding, and the texts of nan, infinities and huge values")
    func fixedText() {
        #expect(fixed(1.0005, 3) == "1.000" || fixed(1.0005, 3) == "1.001")
        #expect(fixed(2.5, 0) == "3")
        #expect(fixed(-0.0004, 3, width: 7) == "  0.000")
        #expect(fixed(-12.34567, 2, width: 3) == "-12.35")
        #expect(fixed(0.05, 2, width: 6) == "  0.05")
        #expect(fixed(Double.nan, 2, width: 5) == "  nan")
        #expect(fixed(-Double.infinity, 1) == "-inf")
        #expect(fixed(1e16, 2) == "1e+16")
        #expect(fixed(123_456_789.125, 3) == "123456789.125")
        #expect(fixed(2e14, 5) == "\(2e14)", "past what UInt64 holds at 5 decimals: no trap, Swift's own text")
    }
}
