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

    @Test("text: the second given, the microseconds, the stream, degrees")
    func text() {
        let line = AttitudePrintFormat.text.line(
            Self.update, wallNanoseconds: 1_700_000_000_004_056_789, secondText: "2023-11-14T22:13:20")
        #expect(line.hasPrefix("2023-11-14T22:13:20.004056Z 'deck' (127.0.0.1:5000) stream 2a #17 roll "), "\(line)")
        #expect(line.contains("28.648°") && line.hasSuffix(" buttons 0x3"), "\(line)")
    }
}
