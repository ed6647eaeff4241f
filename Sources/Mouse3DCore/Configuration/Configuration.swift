/// Where a configuration value came from.
public enum ConfigurationOrigin: Sendable, Equatable, CustomStringConvertible {
    case builtIn
    case file(path: String, line: Int)
    case profile(name: String, path: String, line: Int)
    case environment(String)
    case flag(String)

    public var description: String {
        switch self {
        case .builtIn: "default"
        case .file(let path, let line): line > 0 ? "\(path):\(line)" : path  // 0: the file as a whole
        case .profile(let name, let path, let line): "profile '\(name)', " + (line > 0 ? "\(path):\(line)" : path)
        case .environment(let name): "environment \(name)"
        case .flag(let name): "flag \(name)"
        }
    }
}

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

/// A device profile: settings that apply when the sending device matches.
public struct DeviceProfile: Sendable, Equatable {
    public var name: String
    /// Exact device name (as `mouse3d list` shows it).
    public var matchName: String?
    /// `vvvv:pppp`, the USB/Bluetooth vendor and product ids in hex.
    public var matchID: String?
    /// A prefix of the device's sysfs path.
    public var matchPath: String?
    /// Its settings (sender-side keys only), with the lines they were on.
    public var values: [String: (value: ConfigurationValue, line: Int)]
    public var path: String
    public var line: Int

    public init(name: String, matchName: String?, matchID: String?, matchPath: String?, values: [String: (value: ConfigurationValue, line: Int)], path: String, line: Int) {
        self.name = name
        self.matchName = matchName
        self.matchID = matchID
        self.matchPath = matchPath
        self.values = values
        self.path = path
        self.line = line
    }

    public static func == (a: DeviceProfile, b: DeviceProfile) -> Bool {
        a.name == b.name && a.matchName == b.matchName && a.matchID == b.matchID && a.matchPath == b.matchPath && a.path == b.path
            && a.values.mapValues(\.value) == b.values.mapValues(\.value)
    }

    /// What identifies a device for matching.
    public struct Device: Sendable {
        public var name: String
        /// `vvvv:pppp` if known.
        public var id: String?
        public var sysfsPath: String
        public init(name: String, id: String?, sysfsPath: String) {
            self.name = name
            self.id = id
            self.sysfsPath = sysfsPath
        }
    }

    /// Why this profile matches `device`, or nil. Every match key given must match.
    public func match(_ device: Device) -> String? {
        var reasons: [String] = []
        if let matchName {
            guard device.name == matchName else { return nil }
            reasons.append("name '\(matchName)'")
        }
        if let matchID {
            guard device.id?.lowercased() == matchID.lowercased() else { return nil }
            reasons.append("id \(matchID)")
        }
        if let matchPath {
            guard device.sysfsPath.hasPrefix(matchPath) else { return nil }
            reasons.append("sysfs path \(matchPath)")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
    }
}

/// One layer of configuration (a file, the environment, the flags): values with their origins, and
/// the profiles a file defines.
public struct ConfigurationLayer: Sendable {
    public var values: [String: (value: ConfigurationValue, origin: ConfigurationOrigin)] = [:]
    public var profiles: [DeviceProfile] = []
    public init() {}

    /// Sets `path` from `origin` after checking it against the schema.
    public mutating func set(_ path: String, _ value: ConfigurationValue, origin: ConfigurationOrigin) throws(ConfigurationProblem) {
        guard let key = ConfigurationSchema.key(path) else {
            throw ConfigurationProblem(origin: origin, key: path, reason: .unknownKey(ConfigurationLayer.suggestion(for: path)))
        }
        switch ConfigurationSchema.check(value, for: key) {
        case .success(let checked): values[path] = (checked, origin)
        case .failure(let reason): throw ConfigurationProblem(origin: origin, key: path, reason: reason)
        }
    }

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
                if ConfigurationSchema.sections.contains(where: { name.hasPrefix("MOUSE3D_" + $0.uppercased() + "_") }) {
                    throw ConfigurationProblem(origin: .environment(name), key: "", reason: .unknownKey("no such setting"))
                }
                continue
            }
            guard let value = ConfigurationSchema.parse(environment: text, for: key) else {
                throw ConfigurationProblem(origin: .environment(name), key: key.path, reason: .wrongType("'\(text)' is not \(key.kind.noun)"))
            }
            try layer.set(key.path, value, origin: .environment(name))
        }
        return layer
    }
}

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
            for (path, entry) in profile.values { v[path] = (entry.value, .profile(name: profile.name, path: profile.path, line: entry.line)) }
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

    public func origin(_ path: String) -> ConfigurationOrigin { values[path]?.origin ?? .builtIn }

    /// A problem with the value in effect at `path` (checked beyond the schema, e.g. a button name),
    /// naming where that value was set.
    public func invalid(_ path: String, _ message: String) -> ConfigurationProblem {
        ConfigurationProblem(origin: origin(path), key: path, reason: .invalid(message))
    }

    public func number(_ path: String) -> Double {
        switch self[path] {
        case .number(let d): d
        case .integer(let i): Double(i)
        default: preconditionFailure("\(path) is not a number")
        }
    }

    public func integer(_ path: String) -> Int64 {
        guard case .integer(let i) = self[path] else { preconditionFailure("\(path) is not an integer") }
        return i
    }

    public func boolean(_ path: String) -> Bool {
        guard case .boolean(let b) = self[path] else { preconditionFailure("\(path) is not a boolean") }
        return b
    }

    /// The text at `path`, nil when empty.
    public func text(_ path: String) -> String? {
        guard case .text(let s) = self[path] else { preconditionFailure("\(path) is not text") }
        return s.isEmpty ? nil : s
    }

    public func textList(_ path: String) -> [String] {
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
