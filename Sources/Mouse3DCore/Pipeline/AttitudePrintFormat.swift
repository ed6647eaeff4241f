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
        case .jsonl: Self.appendJSONLine(update, wallNanoseconds: wall, to: &bytes)
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
        var second = secondText
        second.withUTF8 {
            Self.appendTextLine(update, wallNanoseconds: wall, second: UnsafeRawBufferPointer($0), to: &bytes)
        }
    }

    /// The most bytes a text line takes after its stream's prefix: a 20-digit sequence, three
    /// angles of at most 24 characters (Swift's description of a degree count no digits hold) and
    /// their `°` (two bytes), ` buttons 0x` and 16 hex digits, the keys.
    static let textTailCapacity = 192

    /// A text line with its second (`2026-11-22T01:50:00`) given as bytes, appended to `bytes`
    /// (through ``writeTextLine(_:wallNanoseconds:second:at:)``).
    public static func appendTextLine(
        _ update: AttitudeUpdate, wallNanoseconds wall: UInt64, second: UnsafeRawBufferPointer, to bytes: inout [UInt8]
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: textLineCapacity(update, second: second.count)) {
            let count = writeTextLine(update, wallNanoseconds: wall, second: second, at: $0.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<count]))
        }
    }

    /// The most bytes ``writeTextLine(_:wallNanoseconds:second:at:)`` writes for `update` with a
    /// second of `second` bytes.
    public static func textLineCapacity(_ update: AttitudeUpdate, second: Int) -> Int {
        second + 16 + update.stream.textPrefix.count + textTailCapacity
    }

    /// Writes the text line (without its newline) at `start`, which has room for
    /// ``textLineCapacity(_:second:)`` bytes; returns how many it wrote. Written straight into the
    /// output's buffer: once on the stack and then appended, it was two copies and two appends
    /// a frame (`perf`; appended piece by piece, with a right-alignment that moved what it had
    /// written, 3,500 instructions, half a 64-sender receiver's frame: callgrind).
    public static func writeTextLine(
        _ update: AttitudeUpdate, wallNanoseconds wall: UInt64, second: UnsafeRawBufferPointer,
        at start: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let f = update.frame
        var w = ASCIIWriter(start)
        w.bytes(second)
        w.byte(UInt8(ascii: "."))
        w.decimal(wall / 1000 % 1_000_000, minimumDigits: 6)
        w.literal("Z ")
        update.stream.textPrefix.withUnsafeBytes { w.bytes($0) }
        w.decimal(UInt64(update.sequence))
        w.literal(" roll ")
        w.degrees(f.roll)
        w.literal(" pitch ")
        w.degrees(f.pitch)
        w.literal(" yaw ")
        w.degrees(f.yaw)
        if !update.buttons.isEmpty {
            w.literal(" buttons 0x")
            w.hexadecimal(UInt64(update.buttons.rawValue))
        }
        return w.position - start
    }

    /// The start of a stream's jsonl lines, `{"sender":"…","stream":"…","seq":`, which its
    /// ``StreamLabel`` makes once.
    static func jsonlPrefix(sender: String, stream: String) -> [UInt8] {
        Array(#"{"sender":"\#(sender)","stream":"\#(stream)","seq":"#.utf8)
    }

    /// The most bytes a jsonl line takes after its stream's prefix: a 20-digit sequence, a 27-byte
    /// time, three floats, 20 digits of buttons and the keys.
    static let jsonlTailCapacity = 192

    /// The jsonl line appended to `bytes` (through ``writeJSONLine(_:wallNanoseconds:at:)``).
    public static func appendJSONLine(_ update: AttitudeUpdate, wallNanoseconds wall: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: jsonlLineCapacity(update)) {
            let count = writeJSONLine(update, wallNanoseconds: wall, at: $0.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<count]))
        }
    }

    /// The most bytes ``writeJSONLine(_:wallNanoseconds:at:)`` writes for `update`.
    public static func jsonlLineCapacity(_ update: AttitudeUpdate) -> Int {
        update.stream.jsonlPrefix.count + jsonlTailCapacity
    }

    /// Writes the jsonl line (without its newline) at `start`, which has room for
    /// ``jsonlLineCapacity(_:)`` bytes; returns how many it wrote. Written straight into the
    /// output's buffer (once on the stack and then appended with the stream's prefix, it was two
    /// copies and two appends a frame; fourteen appends and three strings, half of a plain
    /// receiver's instructions a frame at 50,000 frames/s, before that).
    public static func writeJSONLine(
        _ update: AttitudeUpdate, wallNanoseconds wall: UInt64, at start: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let f = update.frame
        var w = ASCIIWriter(start)
        update.stream.jsonlPrefix.withUnsafeBytes { w.bytes($0) }
        w.decimal(UInt64(update.sequence))
        w.literal(#","time":"#)
        w.decimal(wall / 1_000_000_000)
        w.byte(UInt8(ascii: "."))
        w.decimal(wall / 1000 % 1_000_000, minimumDigits: 6)
        w.literal(#","roll":"#)
        w.float(f.roll)
        w.literal(#","pitch":"#)
        w.float(f.pitch)
        w.literal(#","yaw":"#)
        w.float(f.yaw)
        w.literal(#","buttons":"#)
        w.decimal(UInt64(update.buttons.rawValue))
        w.byte(UInt8(ascii: "}"))
        return w.position - start
    }
}

/// Writes ASCII into memory the caller sized, moving on.
struct ASCIIWriter {
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

    @inline(__always)
    mutating func byte(_ b: UInt8) {
        position.pointee = b
        position += 1
    }

    @inline(__always)
    mutating func literal(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        if text.hasPointerRepresentation {
            position.update(from: text.utf8Start, count: count)
            position += count
        } else {
            text.withUTF8Buffer { utf8 in
                position.update(from: utf8.baseAddress!, count: utf8.count)
                position += utf8.count
            }
        }
    }

    /// `value` in decimal, zero-padded to `minimumDigits` (at most 20).
    @inline(__always)
    mutating func decimal(_ value: UInt64, minimumDigits: Int = 1) {
        let count = max(DecimalDigits.count(value), min(minimumDigits, 20))
        DecimalDigits.write(value, count: count, to: position)
        position += count
    }

    /// Bytes as they are.
    @inline(__always)
    mutating func bytes(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        UnsafeMutableRawPointer(position).copyMemory(from: base, byteCount: raw.count)
        position += raw.count
    }

    /// `value` in lowercase hexadecimal (no prefix).
    @inline(__always)
    mutating func hexadecimal(_ value: UInt64) {
        var shift = max(0, (63 - value.leadingZeroBitCount) / 4 * 4)
        while shift >= 0 {
            let digit = UInt8((value >> UInt64(shift)) & 0xF)
            byte(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
            shift -= 4
        }
    }

    /// Radians as degrees, three decimals, right-aligned in eight characters, then `°`. What the
    /// digits cannot hold (nan, infinities, beyond 10^15: no frame carries them) is
    /// ``appendFixed(_:decimals:width:to:)``'s text.
    @inline(__always)
    mutating func degrees(_ radians: Float) {
        let degrees = Double(radians) * 180 / .pi
        if Self.holds(degrees, decimals: 3) {
            fixed(degrees, decimals: 3, width: 8)
        } else {
            var text: [UInt8] = []
            appendFixed(degrees, decimals: 3, width: 8, to: &text)
            text.withUnsafeBytes { bytes($0) }
        }
        literal("°")
    }

    /// Whether ``fixed(_:decimals:width:)`` can write `value`: finite, below 10^15, its digits with
    /// `decimals` after the point within a UInt64.
    static func holds(_ value: Double, decimals: Int) -> Bool {
        value.isFinite && abs(value) < 1e15 && abs(value) * scale(decimals) < 1.8e19
    }

    /// 10 to the `decimals` (0 to 15).
    @inline(__always)
    static func scale(_ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<min(max(decimals, 0), 15) { scale *= 10 }
        return scale
    }

    /// `value` with `decimals` digits after the point (at most 15), right-aligned in `width`: a value
    /// ``holds(_:decimals:)`` accepts (``appendFixed(_:decimals:width:to:)`` appends the rest).
    @inline(__always)
    mutating func fixed(_ value: Double, decimals: Int, width: Int) {
        let decimals = min(max(decimals, 0), 15)
        let scale = Self.scale(decimals)
        let units = UInt64((abs(value) * scale).rounded())
        let denominator = UInt64(scale)
        let whole = units / denominator
        let negative = value < 0 && units != 0
        var digits = 1
        var v = whole
        while v >= 10 {
            v /= 10
            digits += 1
        }
        let length = (negative ? 1 : 0) + digits + (decimals > 0 ? 1 + decimals : 0)
        for _ in 0..<max(0, width - length) { byte(UInt8(ascii: " ")) }
        if negative { byte(UInt8(ascii: "-")) }
        decimal(whole)
        if decimals > 0 {
            byte(UInt8(ascii: "."))
            decimal(units % denominator, minimumDigits: decimals)
        }
    }

    /// The shortest text that reads back as `value` (``ShortestFloat``).
    @inline(__always)
    mutating func float(_ value: Float) {
        position += ShortestFloat.write(value, to: position)
    }
}

/// Appends a literal's bytes (one copy, no string made).
@inline(__always)
func appendLiteral(_ text: StaticString, to bytes: inout [UInt8]) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }  // also a one-character literal, kept as a scalar
}

/// Appends `value` in decimal, zero-padded to `minimumDigits` (at most 20), as ``ASCIIWriter`` writes it.
func appendDecimal(_ value: UInt64, minimumDigits: Int = 1, to bytes: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
        let start = buffer.baseAddress!
        var w = ASCIIWriter(start)
        w.decimal(value, minimumDigits: minimumDigits)
        bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: w.position - start))
    }
}
