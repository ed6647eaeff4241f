import Mouse3DCore
import Testing

@Suite("Names from outside, made safe for a terminal")
struct TerminalTextTests {
    @Test(
        "C0, DEL and C1 become \\xHH; other text (accents, emoji, backslashes) is kept; escaping twice changes nothing")
    func escaping() {
        let hostile = "a\u{1B}]0;t\u{07}b\u{1B}[31mc\u{9B}d\r\n\u{7F}\u{80}\u{9F}\u{0}é😀\\"
        let safe = TerminalText.escaped(hostile)
        #expect(safe == "a\\x1b]0;t\\x07b\\x1b[31mc\\x9bd\\x0d\\x0a\\x7f\\x80\\x9f\\x00é😀\\")
        #expect(!safe.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(TerminalText.escaped(safe) == safe)
        #expect(TerminalText.escaped("desk") == "desk")
    }

    @Test("Bidirectional controls and line separators become \\u{HHHH}: a name cannot reorder or break its line")
    func bidirectional() {
        let all: [UInt32] =
            [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069) + [0x2028, 0x2029]
        for value in all {
            let scalar = Unicode.Scalar(value)!
            let safe = TerminalText.escaped("desk\(Character(scalar))kcab")
            #expect(safe == "desk\\u{\(String(value, radix: 16))}kcab", "U+\(String(value, radix: 16))")
            #expect(TerminalText.escaped(safe) == safe)
        }
        // Neighbours that are ordinary text are kept: the zero-width joiner (emoji sequences), Arabic.
        #expect(TerminalText.escaped("👩\u{200D}💻 مرحبا") == "👩\u{200D}💻 مرحبا")
    }

    @Test("A DNS-SD announcement's name (TXT, or the instance name standing in) is escaped")
    func announcement() throws {
        let txt = ["v": String(ReceiverAnnouncement.version), "name": "evil\u{1B}[2J"]
        #expect(try ReceiverAnnouncement.parse(txt, instanceName: "x").get().name == "evil\\x1b[2J")
        #expect(
            try ReceiverAnnouncement.parse(["v": txt["v"]!], instanceName: "inst\u{9B}x").get().name == "inst\\x9bx")
        guard case .failure(let problem) = ReceiverAnnouncement.parse(["v": "9\u{1B}[2J"], instanceName: "x") else {
            Issue.record("a bad version was taken")
            return
        }
        #expect(!"\(problem)".contains("\u{1B}"), "\(problem)")
    }
}
