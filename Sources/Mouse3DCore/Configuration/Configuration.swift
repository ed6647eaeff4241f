/// The effective configuration: built-in defaults overlaid by layers in order (system file, user
/// file, a matched device profile, environment, flags), each value with where it came from.
public struct Configuration: Sendable {
    public private(set) var values: [String: (value: ConfigurationValue, origin: ConfigurationOrigin)]
    /// Every profile the files define, later files first.
    public private(set) var profiles: [DeviceProfile] = []
    /// The profile applied, and why it matched.
    public private(set) var activeProfile: (profile: DeviceProfile, reason: String)?
    /// The device profiles were last matched against.
    public private(set) var activeDevice: DeviceProfile.Device?
    private var fileLayers: [ConfigurationLayer] = []
    private var overrideLayers: [ConfigurationLayer] = []

    /// The built-in defaults alone (the schema's, each written once there).
    public static var builtIn: Configuration { Configuration(files: [], overrides: []) }

    /// The defaults overlaid by `files` (lowest first), then `overrides` (environment, flags).
    public init(files: [ConfigurationLayer], overrides: [ConfigurationLayer]) {
        values = [:]
        fileLayers = files
        overrideLayers = overrides
        profiles = files.reversed().flatMap(\.profiles)
        rebuild()
    }

    private mutating func rebuild() {
        var v: [String: (value: ConfigurationValue, origin: ConfigurationOrigin)] = [:]
        for key in ConfigurationSchema.keys { v[key.path] = (key.defaultValue, .builtIn) }
        for layer in fileLayers { v.merge(layer.values) { $1 } }
        if let (profile, _) = activeProfile {
            for (path, entry) in profile.values {
                v[path] = (entry.value, .profile(name: profile.name, path: profile.path, line: entry.line))
            }
        }
        for layer in overrideLayers { v.merge(layer.values) { $1 } }
        values = v
    }

    /// Applies the first profile (later files first, then file order) that matches `device`; returns
    /// it with the reason, or nil.
    @discardableResult
    public mutating func applyProfile(for device: DeviceProfile.Device) -> (profile: DeviceProfile, reason: String)? {
        activeProfile = nil
        activeDevice = device
        for profile in profiles {
            if let reason = profile.match(device) {
                activeProfile = (profile, reason)
                break
            }
        }
        rebuild()
        return activeProfile
    }

    public subscript(path: String) -> ConfigurationValue {
        guard let v = values[path] else { preconditionFailure("no configuration key \(path)") }
        return v.value
    }

    func origin(_ path: String) -> ConfigurationOrigin { values[path]?.origin ?? .builtIn }

    /// A problem with the value in effect at `path` (checked beyond the schema, e.g. a button name),
    /// naming where that value was set.
    func invalid(_ path: String, _ message: String) -> ConfigurationProblem {
        ConfigurationProblem(origin: origin(path), key: path, reason: .invalid(message))
    }

    public subscript(key: ConfigurationKey<Int64>) -> Int64 { integer(key.path) }
    public subscript(key: ConfigurationKey<Bool>) -> Bool { boolean(key.path) }
    public subscript(key: ConfigurationKey<Double>) -> Double { number(key.path) }
    /// Text (or a choice), nil when empty.
    public subscript(key: ConfigurationKey<String?>) -> String? { text(key.path) }
    public subscript(key: ConfigurationKey<[String]>) -> [String] { textList(key.path) }

    /// Where the value in effect for `key` was set.
    public func origin<Value>(_ key: ConfigurationKey<Value>) -> ConfigurationOrigin { origin(key.path) }

    /// A problem with the value in effect for `key` (checked beyond the schema, e.g. a button
    /// name), naming where that value was set.
    public func invalid<Value>(_ key: ConfigurationKey<Value>, _ message: String) -> ConfigurationProblem {
        invalid(key.path, message)
    }

    func number(_ path: String) -> Double {
        switch self[path] {
        case .number(let d): d
        case .integer(let i): Double(i)
        default: preconditionFailure("\(path) is not a number")
        }
    }

    func integer(_ path: String) -> Int64 {
        guard case .integer(let i) = self[path] else { preconditionFailure("\(path) is not an integer") }
        return i
    }

    func boolean(_ path: String) -> Bool {
        guard case .boolean(let b) = self[path] else { preconditionFailure("\(path) is not a boolean") }
        return b
    }

    /// The text at `path`, nil when empty.
    func text(_ path: String) -> String? {
        guard case .text(let s) = self[path] else { preconditionFailure("\(path) is not text") }
        return s.isEmpty ? nil : s
    }

    func textList(_ path: String) -> [String] {
        guard case .textList(let l) = self[path] else { preconditionFailure("\(path) is not a list") }
        return l
    }

    /// `section.key = value  # origin` for every key, in schema order.
    public var listing: [String] {
        ConfigurationSchema.keys.map { key in
            let v = values[key.path]!
            return "\(key.path) = \(v.value)  # \(v.origin)"
        }
    }

    /// The documented default file: every key with its default and comment.
    public static var documentedDefaults: String {
        var out = """
            # mouse3d configuration: every key with its default value.
            # Read from /etc/mouse3d/config.toml, then $XDG_CONFIG_HOME/mouse3d/config.toml (default
            # ~/.config/mouse3d/config.toml); MOUSE3D_SECTION_KEY environment variables and command-line
            # flags override both. `mouse3d config show` prints the result and where each value came from;
            # `mouse3d config check FILE` checks a file. A running send or receive rereads on SIGHUP.

            """
        for section in ConfigurationSchema.sections {
            out += "\n[\(section)]\n"
            for key in ConfigurationSchema.keys where key.section == section {
                out += "# \(key.comment)\n\(key.name) = \(key.defaultValue)\n"
            }
        }
        out += """

            # Device profiles: settings for one sending device, chosen by name, id (vendor:product, hex)
            # or sysfs path prefix (every match key given must match). A profile may set [send] keys
            # other than source and to, and [filter] keys. The profile in use is printed at start.
            #
            # [[profile]]
            # name = "DualSense"
            # match_id = "054c:0ce6"
            # [profile.send]
            # clutch = "BTN_TL"
            # recenter = "BTN_SOUTH"

            """
        return out
    }
}
