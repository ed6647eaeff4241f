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
        let microseconds = String(wall / 1000 % 1_000_000).leftPadded(to: 6)
        switch self {
        case .jsonl:
            return
                "{\"sender\":\"\(update.stream.sender)\",\"stream\":\"\(update.stream.stream)\",\"seq\":\(update.sequence),"
                + "\"time\":\(wall / 1_000_000_000).\(microseconds),\"roll\":\(f.roll),\"pitch\":\(f.pitch),\"yaw\":\(f.yaw),"
                + "\"buttons\":\(update.buttons.rawValue)}"
        case .text:
            func deg(_ r: Float) -> String { fixed(Double(r) * 180 / .pi, 3, width: 8) + "°" }
            return "\(secondText).\(microseconds)Z \(update.stream) #\(update.sequence) roll \(deg(f.roll)) "
                + "pitch \(deg(f.pitch)) yaw \(deg(f.yaw))"
                + (update.buttons.isEmpty ? "" : " buttons 0x\(String(update.buttons.rawValue, radix: 16))")
        }
    }
}
