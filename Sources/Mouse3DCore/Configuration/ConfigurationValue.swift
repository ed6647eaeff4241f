/// A configuration value.
public enum ConfigurationValue: Sendable, Equatable, CustomStringConvertible {
    case integer(Int64)
    case number(Double)
    case boolean(Bool)
    case text(String)
    case textList([String])

    /// As written in a TOML file.
    public var description: String {
        switch self {
        case .integer(let i): "\(i)"
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? "\(Int64(d)).0" : "\(d)"
        case .boolean(let b): b ? "true" : "false"
        case .text(let s): KeyValueText.quote(s)
        case .textList(let l): "[" + l.map(KeyValueText.quote).joined(separator: ", ") + "]"
        }
    }

    var noun: String {
        switch self {
        case .integer: "a whole number"
        case .number: "a number"
        case .boolean: "true or false"
        case .text: "a string"
        case .textList: "a list of strings"
        }
    }
}
