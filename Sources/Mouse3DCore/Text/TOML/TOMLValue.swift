/// A TOML value, as `TOMLReader` reads it.
public indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case dateTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    /// What kind of value this is, in words, for error messages ("a string", "a table").
    public var noun: String {
        switch self {
        case .string: "a string"
        case .integer: "a whole number"
        case .float: "a number"
        case .boolean: "true or false"
        case .dateTime(let d): d.kind.noun
        case .array: "an array"
        case .table: "a table"
        }
    }

    public static func == (a: TOMLValue, b: TOMLValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.float(let x), .float(let y)): x == y || (x.isNaN && y.isNaN)
        case (.boolean(let x), .boolean(let y)): x == y
        case (.dateTime(let x), .dateTime(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.table(let x), .table(let y)): x == y
        default: false
        }
    }
}
