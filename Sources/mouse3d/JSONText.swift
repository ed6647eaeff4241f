/// Small pieces of JSON output, written by hand (the output is flat and known in advance).
enum JSONText {
    /// A JSON string literal, or `null`.
    static func string(_ value: String?) -> String {
        guard let value else { return "null" }
        var escaped = ""
        for ch in value.unicodeScalars {
            switch ch {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where ch.value < 0x20: escaped += "\\u" + String(String(ch.value, radix: 16).leftPadded(to: 4))
            default: escaped.unicodeScalars.append(ch)
            }
        }
        return "\"\(escaped)\""
    }

    /// A JSON array of strings.
    static func array(_ values: [String]) -> String { "[" + values.map { string($0) }.joined(separator: ",") + "]" }
}
