/// A TOML date, time or date-time, kept as checked text in RFC 3339 form (`T` between date and
/// time, `Z` upper case): no setting uses one, so it is read to be refused by name, not computed on.
public struct TOMLDateTime: Sendable, Equatable {
    /// Which of TOML's four date-time types.
    public enum Kind: Sendable, Equatable {
        case offsetDateTime, localDateTime, localDate, localTime

        var noun: String {
            switch self {
            case .offsetDateTime: "a date-time"
            case .localDateTime: "a local date-time"
            case .localDate: "a date"
            case .localTime: "a time of day"
            }
        }
    }

    /// The type.
    public var kind: Kind
    /// The value, e.g. `1979-05-27T07:32:00Z`.
    public var text: String

    /// Creates a date-time value.
    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }
}
