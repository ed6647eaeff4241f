/// How a printed attitude looks: one line per update.
public enum AttitudePrintFormat: String, CaseIterable, Sendable {
    /// `2026-11-22T01:50:00.123456Z 'laptop' (127.0.0.1:5000) stream 2a #17 roll    1.000° pitch ...` (degrees).
    case text
    /// One JSON object per line, radians, keys sender, stream, seq, time, roll, pitch, yaw, buttons.
    case jsonl

    /// The line for `update`, stamped with the wall clock `wallNanoseconds`; `secondText` is that
    /// second as `2026-11-22T01:50:00` (made once a second by the caller).
    public func line(_ update: AttitudeUpdate, wallNanoseconds wall: UInt64, secondText: String) -> String {
        var bytes: [UInt8] = []
        append(update, wallNanoseconds: wall, secondText: secondText, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line for `update` (without its newline) to `bytes`: the receiver's output buffer,
    /// so that a printed frame costs no string of its own (at 50,000 frames/s the line's string and
    /// its growth were a fifth of the receiver's time: `perf`).
    public func append(
        _ update: AttitudeUpdate, wallNanoseconds wall: UInt64, secondText: String, to bytes: inout [UInt8]
    ) {
        switch self {
        case .jsonl: appendJSONLine(update, wallNanoseconds: wall, to: &bytes)
        case .text: appendTextLine(update, wallNanoseconds: wall, secondText: secondText, to: &bytes)
        }
    }

    /// The start of a stream's text lines, `'laptop' (127.0.0.1:5000) stream 2a #`, which its
    /// ``StreamLabel`` makes once.
    static func textPrefix(description: String) -> [UInt8] { Array("\(description) #".utf8) }

    /// `2026-11-22T01:50:00.123456Z 'laptop' (127.0.0.1:5000) stream 2a #17 roll    1.000° …`, written
    /// byte by byte like the jsonl line (as a string it was a quarter of a 1 kHz receiver's time: `perf`).
    func appendTextLine(
        _ update: AttitudeUpdate, wallNanoseconds wall: UInt64, secondText: String, to bytes: inout [UInt8]
    ) {
        let f = update.frame
        var second = secondText
        second.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "."))
        appendDecimal(wall / 1000 % 1_000_000, minimumDigits: 6, to: &bytes)
        appendLiteral("Z ", to: &bytes)
        bytes.append(contentsOf: update.stream.textPrefix)
        appendDecimal(UInt64(update.sequence), to: &bytes)
        appendLiteral(" roll ", to: &bytes)
        appendDegrees(f.roll, to: &bytes)
        appendLiteral(" pitch ", to: &bytes)
        appendDegrees(f.pitch, to: &bytes)
        appendLiteral(" yaw ", to: &bytes)
        appendDegrees(f.yaw, to: &bytes)
        guard !update.buttons.isEmpty else { return }
        appendLiteral(" buttons 0x", to: &bytes)
        appendHexadecimal(UInt64(update.buttons.rawValue), to: &bytes)
    }

    /// Radians as degrees, three decimals, right-aligned in eight characters, then `°`.
    private func appendDegrees(_ radians: Float, to bytes: inout [UInt8]) {
        appendFixed(Double(radians) * 180 / .pi, decimals: 3, width: 8, to: &bytes)
        appendLiteral("°", to: &bytes)
    }

    /// The start of a stream's jsonl lines, `{"sender":"…","stream":"…","seq":`, which its
    /// ``StreamLabel`` makes once.
    static func jsonlPrefix(sender: String, stream: String) -> [UInt8] {
        Array(#"{"sender":"\#(sender)","stream":"\#(stream)","seq":"#.utf8)
    }

    func appendJSONLine(_ update: AttitudeUpdate, wallNanoseconds wall: UInt64, to bytes: inout [UInt8]) {
        let f = update.frame
        bytes.append(contentsOf: update.stream.jsonlPrefix)
        appendDecimal(UInt64(update.sequence), to: &bytes)
        appendLiteral(#","time":"#, to: &bytes)
        appendDecimal(wall / 1_000_000_000, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDecimal(wall / 1000 % 1_000_000, minimumDigits: 6, to: &bytes)
        appendLiteral(#","roll":"#, to: &bytes)
        appendShortest(f.roll, to: &bytes)
        appendLiteral(#","pitch":"#, to: &bytes)
        appendShortest(f.pitch, to: &bytes)
        appendLiteral(#","yaw":"#, to: &bytes)
        appendShortest(f.yaw, to: &bytes)
        appendLiteral(#","buttons":"#, to: &bytes)
        appendDecimal(UInt64(update.buttons.rawValue), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

/// Appends a literal's bytes (one copy, no string made).
@inline(__always)
func appendLiteral(_ text: StaticString, to bytes: inout [UInt8]) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }  // also a one-character literal, kept as a scalar
}

/// Appends the shortest decimal that reads back as `value` (Swift's `description`: a small string,
/// which allocates nothing, copied out through its UTF-8 view).
@inline(__always)
func appendShortest(_ value: Float, to bytes: inout [UInt8]) {
    var text = value.description
    text.withUTF8 { bytes.append(contentsOf: $0) }
}

/// Appends `value` in decimal, zero-padded to `minimumDigits`.
func appendDecimal(_ value: UInt64, minimumDigits: Int = 1, to bytes: inout [UInt8]) {
    var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: room for 20 digits
    var count = 0
    var v = value
    withUnsafeMutableBytes(of: &digits) { buffer in
        repeat {
            buffer[31 - count] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            count += 1
        } while v > 0 || count < min(minimumDigits, 20)
        bytes.append(contentsOf: buffer[(32 - count)...])
    }
}
