import Mouse3DCore

/// Every kind of motion source, in the order a specifier is tried: a new kind is a line here.
public enum SourceCatalog {
    /// The kinds.
    public static let kinds: [any SourceKind.Type] = [LiveSourceKind.self, ReplaySourceKind.self, PhoneSourceKind.self]

    /// The source `argument` names, or nil.
    public static func parse(_ argument: String) -> (any SourceKind)? {
        for kind in kinds {
            if let source = kind.parse(argument) { return source }
        }
        return nil
    }

    /// Every way a source is written, for messages: "auto, evdev:PATH, ... or phone[:[ADDR:]PORT]".
    public static var forms: String {
        let all = kinds.flatMap { $0.forms }
        return all.dropLast().joined(separator: ", ") + " or " + (all.last ?? "")
    }

    /// The source the configuration names (checked, with where it was set), after checking the
    /// button names: nothing opens before both are known to be good.
    public static func chosen(_ configuration: Configuration) throws -> any SourceKind {
        let text = configuration[.sendSource] ?? "auto"
        guard let source = parse(text) else {
            throw ActionableError("\(configuration.invalid(.sendSource, "'\(text)' is not \(forms)"))")
        }
        _ = try ButtonSettings(configuration)
        return source
    }
}
