import Foundation
import Mouse3DCore
import Testing

/// The TOML reader against the toml-test corpus (github.com/toml-lang/toml-test, MIT licence, its
/// `tests/files-toml-1.0.0` list at d168c2a, copied under Fixtures/toml-test): every valid case must
/// read to the corpus's JSON, every invalid case must be refused.
@Suite("TOML reader")
struct TOMLReaderTests {
    static let corpus: URL? = Bundle.module.url(forResource: "toml-test", withExtension: nil, subdirectory: "Fixtures")

    static func cases() throws -> [String] {
        let root = try #require(corpus)
        let list = try String(contentsOf: root.appendingPathComponent("files-toml-1.0.0"), encoding: .utf8)
        return list.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".toml") }
    }

    @Test("Every valid TOML 1.0 case of toml-test reads to its expected JSON")
    func validCases() throws {
        let root = try #require(Self.corpus)
        let valid = try Self.cases().filter { $0.hasPrefix("valid/") }
        #expect(valid.count > 150)
        var failures: [String] = []
        for name in valid {
            let bytes = Array(try Data(contentsOf: root.appendingPathComponent(name)))
            let jsonURL = root.appendingPathComponent(String(name.dropLast(5)) + ".json")
            let expected = try JSONSerialization.jsonObject(
                with: Data(contentsOf: jsonURL), options: [.fragmentsAllowed])
            do {
                let table = try TOMLReader.parse(bytes: bytes)
                if let difference = Self.difference(.table(table), expected, at: "") {
                    failures.append("\(name): \(difference)")
                }
            } catch {
                failures.append("\(name): refused: \(error)")
            }
        }
        #expect(
            failures.isEmpty,
            Comment(rawValue: "\(failures.count) of \(valid.count):\n" + failures.joined(separator: "\n")))
    }

    @Test("Every invalid TOML 1.0 case of toml-test is refused with a line inside the file")
    func invalidCases() throws {
        let root = try #require(Self.corpus)
        let invalid = try Self.cases().filter { $0.hasPrefix("invalid/") }
        #expect(invalid.count > 400)
        var failures: [String] = []
        for name in invalid {
            let bytes = Array(try Data(contentsOf: root.appendingPathComponent(name)))
            do {
                _ = try TOMLReader.parse(bytes: bytes)
                failures.append("\(name): accepted")
            } catch {
                let lines = bytes.count { $0 == 0x0A } + 1
                if !(1...lines).contains(error.line) { failures.append("\(name): line \(error.line) of \(lines)") }
            }
        }
        #expect(
            failures.isEmpty,
            Comment(rawValue: "\(failures.count) of \(invalid.count):\n" + failures.joined(separator: "\n")))
    }

    @Test("Keys carry the line they were written on, [[array]] elements their header's")
    func lines() throws {
        let text =
            "# comment\nname = \"x\"\n\n[send]\nclutch = \"BTN_TL\"\nrate = [\n  1,\n  2,\n]\n[[profile]]\nname = \"a\"\n[[profile]]\nname = \"b\"\n"
        let table = try TOMLReader.parse(text)
        #expect(table.line(of: "name") == 2)
        guard case .table(let send)? = table["send"], case .array(let profiles)? = table["profile"] else {
            Issue.record("send or profile missing: \(table)")
            return
        }
        #expect(table.line(of: "send") == 4)
        #expect(send.line(of: "clutch") == 5)
        #expect(send.line(of: "rate") == 6)
        guard case .table(let second) = profiles[1] else {
            Issue.record("profile 2 not a table")
            return
        }
        #expect(second.line == 12)
        #expect(second.line(of: "name") == 13)
    }

    @Test(
        "A refusal names the line where the fault is",
        arguments: [
            ("a = 1\nb = 2\na = 3\n", 3), ("[x]\n[y]\n[x]\n", 3), ("a = \"open\n", 1), ("a = [1,\n2\n3]\n", 3),
            ("\n\nk = 0x\n", 3), ("a = 1\nb = 1979-13-01\n", 2), ("ok = 1\nbad = \"\\q\"\n", 2)
        ])
    func errorLines(text: String, line: Int) {
        #expect(throws: TOMLError.self) { try TOMLReader.parse(text) }
        do {
            _ = try TOMLReader.parse(text)
        } catch {
            #expect(error.line == line, "\(error)")
        }
    }

    @Test("Tables nested past 128 levels are refused, however they are written, not read until the stack runs out")
    func depth() {
        let deep = Array(repeating: "a", count: 50_000).joined(separator: ".")
        let inline = Array(
            repeating: "{ " + Array(repeating: "b", count: 100).joined(separator: ".") + " = ", count: 100
        ).joined()
        for text in ["\(deep) = 1\n", "[\(deep)]\n", "x = \(inline)1\(String(repeating: " }", count: 100))\n"] {
            do {
                _ = try TOMLReader.parse(text)
                Issue.record("accepted \(text.prefix(40))")
            } catch {
                #expect(error.message.contains("deeper than 128"), "\(error)")
            }
        }
        let fine = Array(repeating: "a", count: 100).joined(separator: ".")
        #expect((try? TOMLReader.parse("[\(fine)]\nk = 1\n")) != nil)
    }

    @Test("20,000 [[array]] headers read in linear time, in order")
    func manyArrayTables() throws {
        let text = (0..<20_000).map { "[[p]]\nn = \($0)\n" }.joined()
        let table = try TOMLReader.parse(text)
        guard case .array(let elements)? = table["p"], case .table(let last)? = elements.last else {
            Issue.record("no array of tables")
            return
        }
        #expect(elements.count == 20_000 && last["n"] == .integer(19_999))
    }

    @Test("A table implied by a deeper header and defined later carries its own header's line")
    func impliedTableLine() {
        do {
            _ = try TOMLReader.parse("[a.b]\nx = 1\n[a]\ny = 2\n[a]\n")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 5 && error.message.contains("first on line 3"), "\(error)")
        }
    }

    @Test("Invalid UTF-8 is refused with its line, not replaced")
    func invalidUTF8() {
        do {
            _ = try TOMLReader.parse(bytes: Array("a = 1\nb = \"".utf8) + [0xC3, 0x28] + Array("\"\n".utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.line == 2)
        }
    }

    static func trimmedFraction(_ text: String) -> String {
        guard let dot = text.firstIndex(of: ".") else { return text }
        let digitsEnd = text[text.index(after: dot)...].firstIndex { !$0.isNumber } ?? text.endIndex
        var digits = text[text.index(after: dot)..<digitsEnd]
        while digits.last == "0" { digits = digits.dropLast() }
        return text[..<dot] + (digits.isEmpty ? "" : "." + digits) + text[digitsEnd...]
    }

    /// Where `value` differs from toml-test's tagged JSON `expected`, or nil.
    static func difference(_ value: TOMLValue, _ expected: Any, at path: String) -> String? {
        if let leaf = expected as? [String: Any], leaf.count == 2, let type = leaf["type"] as? String,
            let text = leaf["value"] as? String
        {
            switch (type, value) {
            case ("string", .string(let s)):
                return s == text ? nil : "\(path): \(s.debugDescription) != \(text.debugDescription)"
            case ("integer", .integer(let i)): return Int64(text) == i ? nil : "\(path): \(i) != \(text)"
            case ("float", .float(let d)):
                let want: Double? =
                    switch text {
                    case "nan", "+nan", "-nan": .nan
                    case "inf", "+inf": .infinity
                    case "-inf": -.infinity
                    default: Double(text)
                    }
                guard let want else { return "\(path): expected float \(text)" }
                return (want.isNaN && d.isNaN) || want == d ? nil : "\(path): \(d) != \(text)"
            case ("bool", .boolean(let b)): return "\(b)" == text ? nil : "\(path): \(b) != \(text)"
            case ("datetime", .dateTime(let d)) where d.kind == .offsetDateTime,
                ("datetime-local", .dateTime(let d)) where d.kind == .localDateTime,
                ("date-local", .dateTime(let d)) where d.kind == .localDate,
                ("time-local", .dateTime(let d)) where d.kind == .localTime:
                // The corpus writes fractions to milliseconds; a fraction's trailing zeros say nothing.
                return trimmedFraction(d.text) == trimmedFraction(text) ? nil : "\(path): \(d.text) != \(text)"
            default: return "\(path): \(value) is not a \(type) \(text)"
            }
        }
        if let list = expected as? [Any] {
            guard case .array(let values) = value else { return "\(path): \(value.noun), expected an array" }
            guard values.count == list.count else { return "\(path): \(values.count) elements, expected \(list.count)" }
            for (i, (v, e)) in zip(values, list).enumerated() {
                if let d = difference(v, e, at: "\(path)[\(i)]") { return d }
            }
            return nil
        }
        if let object = expected as? [String: Any] {
            guard case .table(let table) = value else { return "\(path): \(value.noun), expected a table" }
            guard Set(table.keys) == Set(object.keys) else {
                return "\(path): keys \(table.keys.sorted()) != \(object.keys.sorted())"
            }
            for key in table.keys {
                if let d = difference(table[key]!, object[key]!, at: "\(path).\(key)") { return d }
            }
            return nil
        }
        return "\(path): unexpected JSON \(expected)"
    }
}
