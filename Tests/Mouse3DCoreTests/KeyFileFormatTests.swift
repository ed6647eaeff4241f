import Mouse3DCore
import Testing

@Suite("Key file text, hex, pairing codes, rate limits")
struct KeyFileFormatTests {
    @Test("Key files parse strings and integers, skip comments, and round-trip what render writes")
    func roundTrip() throws {
        let text = KeyValueText.render(
            comment: ["a comment"], [("name", .string("a \"quoted\" \\ name")), ("epoch", .integer(42))])
        let d = try KeyValueText.parse(text, file: "f")
        #expect(try d.string("name") == "a \"quoted\" \\ name")
        #expect(try d.integer("epoch") == 42)
        #expect(try d.integer("missing", default: 7) == 7)
    }

    @Test(
        "Errors name the file, the line and the key",
        arguments: [
            ("name = \"x\"\nname = \"y\"", 2, "given twice"),
            ("# c\nname \"x\"", 2, "expected key = value"),
            ("Name = \"x\"", 1, "bad key"),
            ("name = \"x", 1, "unterminated"),
            ("name = x", 1, "quoted string or a whole number"),
            ("name = \"x\" y", 1, "expected the end of the line")
        ])
    func errors(text: String, line: Int, message: String) {
        do {
            _ = try KeyValueText.parse(text, file: "/k/peer.key")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(
                error.line == line && error.description.hasPrefix("/k/peer.key:\(line): ")
                    && error.description.contains(message), "\(error)")
        }
    }

    @Test("Typed getters refuse the wrong type and hex of the wrong length")
    func typedGetters() throws {
        let d = try KeyValueText.parse("n = 5\ns = \"abc\"\nh = \"00ff\"", file: "f")
        #expect(throws: KeyValueText.ParseError.self) { try d.string("n") }
        #expect(throws: KeyValueText.ParseError.self) { try d.integer("s") }
        #expect(throws: KeyValueText.ParseError.self) { try d.hex("h", count: 3) }
        #expect(throws: KeyValueText.ParseError.self) { try d.string("absent") }
        #expect(try d.hex("h", count: 2) == [0, 255])
    }

    @Test("Hex round-trips every byte and refuses odd or non-hex text")
    func hex() {
        let all = (0...255).map { UInt8($0) }
        #expect(Hexadecimal.decode(Hexadecimal.encode(all)) == all)
        #expect(Hexadecimal.decode("ABcd") == [0xAB, 0xCD])
        #expect(Hexadecimal.decode("abc") == nil && Hexadecimal.decode("zz") == nil)
    }

    @Test("Codes are 8 digits, typed with or without dashes and spaces")
    func codes() throws {
        #expect(PairingCode(parsing: "1234-5678")?.digits == "12345678")
        #expect(PairingCode(parsing: " 1234 5678 ")?.description == "1234-5678")
        for bad in ["1234-567", "123456789", "1234-567a", "", "١٢٣٤٥٦٧٨"] {
            #expect(PairingCode(parsing: bad) == nil, "\(bad)")
        }
        var seen = Set<String>()
        for _ in 0..<200 { seen.insert(PairingCode.random().digits) }
        #expect(seen.count > 190 && seen.allSatisfy { $0.count == 8 })
    }

    @Test("Token buckets: a burst, then the rate; sources apart; the table stays bounded")
    func rateLimiter() {
        var limiter = SourceRateLimiter<Int>(ratePerSecond: 100, burst: 10, capacity: 8)
        var allowed = 0
        for _ in 0..<50 where limiter.allow(1, now: 0) { allowed += 1 }
        #expect(allowed == 10)
        #expect(!limiter.wouldAllow(1, now: 5_000_000) && limiter.wouldAllow(1, now: 10_000_000))
        let other = limiter.allow(2, now: 0)
        #expect(other, "another source has its own bucket")
        for source in 3..<100 { _ = limiter.allow(source, now: UInt64(source)) }
        #expect(limiter.count <= 8)
    }
}
