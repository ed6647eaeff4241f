/// One layer of configuration (a file, the environment, the flags): values with their origins, and
/// the profiles a file defines.
public struct ConfigurationLayer: Sendable {
    public var values: [String: (value: ConfigurationValue, origin: ConfigurationOrigin)] = [:]
    public var profiles: [DeviceProfile] = []
    public init() {}

    /// Sets `path` from `origin` after checking it against the schema.
    public mutating func set(_ path: String, _ value: ConfigurationValue, origin: ConfigurationOrigin)
        throws(ConfigurationProblem)
    {
        guard let key = ConfigurationSchema.key(path) else {
            throw ConfigurationProblem(
                origin: origin, key: path, reason: .unknownKey(ConfigurationLayer.suggestion(for: path)))
        }
        switch ConfigurationSchema.check(value, for: key) {
        case .success(let checked): values[path] = (checked, origin)
        case .failure(let reason): throw ConfigurationProblem(origin: origin, key: path, reason: reason)
        }
    }

    /// Sets a number from `origin` (a flag): named by its type, so a mistyped key does not compile.
    public mutating func set(_ key: ConfigurationKey<Double>, _ value: Double, origin: ConfigurationOrigin)
        throws(ConfigurationProblem)
    { try set(key.path, .number(value), origin: origin) }

    /// Sets a switch from `origin`.
    public mutating func set(_ key: ConfigurationKey<Bool>, _ value: Bool, origin: ConfigurationOrigin)
        throws(ConfigurationProblem)
    { try set(key.path, .boolean(value), origin: origin) }

    /// Sets a text or a choice from `origin`.
    public mutating func set(_ key: ConfigurationKey<String?>, _ value: String, origin: ConfigurationOrigin)
        throws(ConfigurationProblem)
    { try set(key.path, .text(value), origin: origin) }

    /// Sets a list of texts from `origin`.
    public mutating func set(_ key: ConfigurationKey<[String]>, _ value: [String], origin: ConfigurationOrigin)
        throws(ConfigurationProblem)
    { try set(key.path, .textList(value), origin: origin) }

    /// "did you mean ..." for a misspelt key.
    static func suggestion(for path: String) -> String {
        let section = path.prefix { $0 != "." }
        guard ConfigurationSchema.sections.contains(String(section)) else {
            return "sections are " + ConfigurationSchema.sections.joined(separator: ", ")
        }
        let names = ConfigurationSchema.keys.filter { $0.section == section }.map { String($0.name) }
        return "[\(section)] has " + names.joined(separator: ", ")
    }

    /// The environment layer: every `MOUSE3D_SECTION_KEY` of `environment`; an unknown key in a known
    /// section, or a value that does not parse, is a problem.
    public static func environment(_ environment: [String: String]) throws(ConfigurationProblem) -> ConfigurationLayer {
        var layer = ConfigurationLayer()
        for (name, text) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("MOUSE3D_") {
            guard let key = ConfigurationSchema.keys.first(where: { $0.environmentName == name }) else {
                if ConfigurationSchema.sections.contains(where: { name.hasPrefix("MOUSE3D_" + $0.uppercased() + "_") })
                {
                    throw ConfigurationProblem(
                        origin: .environment(name), key: "", reason: .unknownKey("no such setting"))
                }
                continue
            }
            guard let value = ConfigurationSchema.parse(environment: text, for: key) else {
                throw ConfigurationProblem(
                    origin: .environment(name), key: key.path, reason: .wrongType("'\(text)' is not \(key.kind.noun)"))
            }
            try layer.set(key.path, value, origin: .environment(name))
        }
        return layer
    }
}
