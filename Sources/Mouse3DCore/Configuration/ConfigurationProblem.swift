/// A configuration that cannot be used: which file, line and key, and what is wrong.
public struct ConfigurationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Error, Sendable, Equatable {
        case syntax(String)
        case unknownKey(String)
        case wrongType(String)
        case outOfRange(String)
        case invalid(String)
    }

    /// `FILE:LINE`, `environment NAME` or `flag --NAME`.
    public var origin: ConfigurationOrigin
    /// `section.key`, or empty for the whole file.
    public var key: String
    public var reason: Reason

    public init(origin: ConfigurationOrigin, key: String, reason: Reason) {
        self.origin = origin
        self.key = key
        self.reason = reason
    }

    public var description: String {
        let what: String
        switch reason {
        case .syntax(let m): what = "not valid TOML: \(m)"
        case .unknownKey(let hint): what = "unknown key\(hint.isEmpty ? "" : " (\(hint))")"
        case .wrongType(let m), .outOfRange(let m), .invalid(let m): what = m
        }
        return "\(origin)\(key.isEmpty ? "" : ": \(key)"): \(what)"
    }
}
