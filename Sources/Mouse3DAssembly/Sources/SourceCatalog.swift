import Mouse3DCore

/// Every kind of motion source, in the order a specifier is tried: a new kind is a line here.
public enum SourceCatalog {
    /// The kinds.
    public static let kinds: [any SourceKind.Type] = [
        LiveSourceKind.self,
        ReplaySourceKind.self,
        PhoneSourceKind.self
    ]

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

    /// Every kind as `--source` help describes it, "a, b, or c"; `recording`: only those `record`
    /// takes.
    public static func help(recording: Bool = false) -> String {
        let all = kinds.filter { !recording || $0.recordRefusal == nil }.map { $0.help }
        guard let last = all.last, all.count > 1 else { return all.joined() }
        return all.dropLast().joined(separator: ", ") + ", or " + last
    }

    /// A configuration file's `send.source`, if it sets one, checked against the kinds (the schema
    /// below this layer checks only its shape): for `config check`.
    public static func check(_ layer: ConfigurationLayer) throws(ConfigurationProblem) {
        guard let (value, origin) = layer.values[ConfigurationKey<String?>.sendSource.path],
            case .text(let text) = value,
            parse(text) == nil
        else { return }
        throw ConfigurationProblem(
            origin: origin, key: ConfigurationKey<String?>.sendSource.path,
            reason: .invalid("'\(text)' is not a source: \(forms)"))
    }

    /// The source the configuration names (checked, with where it was set), after checking the
    /// button names: nothing opens before both are known to be good.
    public static func chosen(_ configuration: Configuration) throws -> any SourceKind {
        let text = configuration[.sendSource] ?? "auto"
        guard let source = parse(text) else {
            throw ActionableError("\(configuration.invalid(.sendSource, "'\(text)' is not a source: \(forms)"))")
        }
        _ = try ButtonSettings(configuration)
        return source
    }
}
