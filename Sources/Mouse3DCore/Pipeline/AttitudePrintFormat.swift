/// How a printed attitude looks: one line per update.
public enum AttitudePrintFormat: String, CaseIterable, Sendable {
    /// `2026-11-22T01:50:00.123456Z 'laptop' (127.0.0.1:5000) stream 2a #17 roll    1.000° pitch ...` (degrees).
    case text
    /// One JSON object per line, radians, keys sender, stream, seq, time, roll, pitch, yaw, buttons.
    case jsonl

    /// The line for `update`, stamped with the wall clock `wallNanoseconds`; `secondText` is that
    /// second as `2026-11-22T01:50:00` (made once a second by the caller).
    public func line(_ update: AttitudeUpdate, wallNanoseconds wall: UInt64, secondText: String) -> String {
        let f = update.frame
        let microseconds = Self.sixDigits(wall / 1000 % 1_000_000)
        switch self {
        case .jsonl:
            // Appended into one string sized once: a receiver prints a line per frame, and building
            // it from interpolated pieces joined by + cost a fifth of its time per frame.
            var s = ""
            s.reserveCapacity(192)
            s += "{\"sender\":\""
            s += update.stream.sender
            s += "\",\"stream\":\""
            s += update.stream.stream
            s += "\",\"seq\":"
            s += update.sequence.description
            s += ",\"time\":"
            s += (wall / 1_000_000_000).description
            s += "."
            s += microseconds
            s += ",\"roll\":"
            s += f.roll.description
            s += ",\"pitch\":"
            s += f.pitch.description
            s += ",\"yaw\":"
            s += f.yaw.description
            s += ",\"buttons\":"
            s += update.buttons.rawValue.description
            s += "}"
            return s
        case .text:
            func deg(_ r: Float) -> String { fixed(Double(r) * 180 / .pi, 3, width: 8) + "°" }
            return "\(secondText).\(microseconds)Z \(update.stream) #\(update.sequence) roll \(deg(f.roll)) "
                + "pitch \(deg(f.pitch)) yaw \(deg(f.yaw))"
                + (update.buttons.isEmpty ? "" : " buttons 0x\(String(update.buttons.rawValue, radix: 16))")
        }
    }

    /// `value` (below a million) as six digits.
    static func sixDigits(_ value: UInt64) -> String {
        let digits = value.description
        return digits.utf8.count >= 6 ? digits : String(repeating: "0", count: 6 - digits.utf8.count) + digits
    }
}
