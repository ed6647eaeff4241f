/// The one JSON writer for what mouse3d prints and serves: string literals and arrays of them; the
/// numbers and keys around them are written where the (flat, known) shape is.
///
/// Escapes `"` and `\`, newline, return and tab by name, other control characters and DEL as `\u00XX`, and
/// `<`, `>` and `&` as `\u003c`, `\u003e` and `\u0026`, so that a name from outside stays one string
/// and inert wherever the text ends up (a terminal, a pipe, a page). Every escape it writes is also
/// TOML's, so the same literal is a TOML basic string (the key files' values).
public enum JSONText {
    /// `value` as a JSON string literal, or `null`.
    public static func string(_ value: String?) -> String {
        guard let value else { return "null" }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "<" || scalar == ">" || scalar == "&" {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A JSON array of string literals.
    public static func array(_ values: [String]) -> String {
        "[" + values.map { string($0) }.joined(separator: ",") + "]"
    }

    /// A JSON array of objects already written as JSON, one to a line (as `list`, `peers` and
    /// `doctor` print them with --json).
    public static func objectArray(_ objects: [String]) -> String {
        "[" + objects.joined(separator: ",\n ") + "]"
    }
}
