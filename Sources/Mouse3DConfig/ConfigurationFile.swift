import Mouse3DCore
import Mouse3DLinux

/// Reads a mouse3d TOML configuration file (Core's `TOMLReader`) into a checked layer: unknown
/// keys, wrong types and out-of-range values are problems naming the file, line and key.
public enum ConfigurationFile {
    /// The layer of the file at `path`, or nil if there is no such file.
    public static func load(path: String) throws(ConfigurationProblem) -> ConfigurationLayer? {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.read(path: path)
        } catch {
            if error.errno == .noSuchFileOrDirectory { return nil }
            throw ConfigurationProblem(
                origin: .file(path: path, line: 0), key: "", reason: .invalid("cannot read: \(error.errno)"))
        }
        return try parse(bytes: bytes, path: path)
    }

    /// The layer of `text` read from `path`.
    public static func parse(_ text: String, path: String) throws(ConfigurationProblem) -> ConfigurationLayer {
        try parse(bytes: Array(text.utf8), path: path)
    }

    /// The layer of the UTF-8 `bytes` read from `path`.
    public static func parse(bytes: [UInt8], path: String) throws(ConfigurationProblem) -> ConfigurationLayer {
        let table: TOMLTable
        do {
            table = try TOMLReader.parse(bytes: bytes)
        } catch {
            throw ConfigurationProblem(
                origin: .file(path: path, line: error.line), key: "", reason: .syntax(error.message))
        }
        var layer = ConfigurationLayer()
        for entry in table.entries {
            let name = entry.key
            let at = ConfigurationOrigin.file(path: path, line: entry.line)
            if name == "profile" {
                guard case .array(let array) = entry.value else {
                    throw ConfigurationProblem(
                        origin: at, key: name, reason: .wrongType("profiles are written [[profile]]"))
                }
                for element in array {
                    guard case .table(let profileTable) = element else {
                        throw ConfigurationProblem(
                            origin: at, key: name, reason: .wrongType("profiles are written [[profile]]"))
                    }
                    layer.profiles.append(try profile(profileTable, path: path))
                }
                continue
            }
            guard ConfigurationSchema.sections.contains(name) else {
                throw ConfigurationProblem(
                    origin: at, key: name,
                    reason: .unknownKey(
                        "sections are " + ConfigurationSchema.sections.joined(separator: ", ") + ", and [[profile]]"))
            }
            guard case .table(let section) = entry.value else {
                throw ConfigurationProblem(origin: at, key: name, reason: .wrongType("[\(name)] must be a table"))
            }
            for item in section.entries {
                let full = "\(name).\(item.key)"
                let origin = ConfigurationOrigin.file(path: path, line: item.line)
                try layer.set(full, try value(item.value, origin: origin, key: full), origin: origin)
                try checkButton(full, layer.values[full]?.value, origin: origin)
            }
        }
        return layer
    }

    /// The settings that name a gamepad button.
    static let buttonKeys: Set<String> = [
        "send.clutch", "send.recenter", "send.primary", "send.secondary", "send.recalibrate"
    ]

    /// A button setting must name a button libevdev knows (`BTN_TL`, `KEY_A`...), as send and run check it.
    static func checkButton(_ path: String, _ value: ConfigurationValue?, origin: ConfigurationOrigin)
        throws(ConfigurationProblem)
    {
        let bare =
            path.hasPrefix("profile.") ? String(path.split(separator: ".").suffix(2).joined(separator: ".")) : path
        guard buttonKeys.contains(bare), case .text(let name)? = value, !name.isEmpty else { return }
        guard GamepadButtons.code(named: name) != nil else {
            throw ConfigurationProblem(
                origin: origin, key: path,
                reason: .invalid("'\(name)' is not a button name (BTN_SOUTH, BTN_TL, BTN_TR2...: `evtest` shows them)"))
        }
    }

    private static func profile(_ table: TOMLTable, path: String) throws(ConfigurationProblem) -> DeviceProfile {
        let start = table.line
        func origin(_ line: Int?) -> ConfigurationOrigin { .file(path: path, line: line ?? start) }
        func string(_ key: String) throws(ConfigurationProblem) -> String? {
            guard let item = table[key] else { return nil }
            guard case .string(let s) = item else {
                throw ConfigurationProblem(
                    origin: origin(table.line(of: key)), key: "profile.\(key)", reason: .wrongType("expected a string"))
            }
            return s
        }
        guard let name = try string("name") else {
            throw ConfigurationProblem(
                origin: .file(path: path, line: start), key: "profile", reason: .invalid("a profile needs a name"))
        }
        var profile = DeviceProfile(
            name: name, matchName: try string("match_name"), matchID: try string("match_id"),
            matchPath: try string("match_path"),
            values: [:], path: path, line: start)
        guard profile.matchName != nil || profile.matchID != nil || profile.matchPath != nil else {
            throw ConfigurationProblem(
                origin: .file(path: path, line: start), key: "profile",
                reason: .invalid("profile '\(name)' needs match_name, match_id or match_path"))
        }
        if let id = profile.matchID, !isDeviceID(id) {
            throw ConfigurationProblem(
                origin: origin(table.line(of: "match_id")), key: "profile.match_id",
                reason: .invalid("'\(id)' is not vendor:product in hex, e.g. 054c:0ce6"))
        }
        for entry in table.entries where !["name", "match_name", "match_id", "match_path"].contains(entry.key) {
            guard ["send", "filter", "gamepad"].contains(entry.key), case .table(let section) = entry.value else {
                throw ConfigurationProblem(
                    origin: origin(entry.line), key: "profile.\(entry.key)",
                    reason: .unknownKey(
                        "a profile has name, match_name, match_id, match_path, [profile.send], [profile.filter] and [profile.gamepad]"
                    ))
            }
            for item in section.entries {
                let full = "\(entry.key).\(item.key)"
                let o = origin(item.line)
                guard let schemaKey = ConfigurationSchema.key(full) else {
                    throw ConfigurationProblem(origin: o, key: "profile.\(full)", reason: .unknownKey(""))
                }
                guard schemaKey.inProfiles else {
                    throw ConfigurationProblem(
                        origin: o, key: "profile.\(full)",
                        reason: .invalid("not a per-device setting; set it in [\(entry.key)]"))
                }
                var check = ConfigurationLayer()
                do {
                    try check.set(full, try value(item.value, origin: o, key: full), origin: o)
                    try checkButton(full, check.values[full]?.value, origin: o)
                } catch {
                    throw ConfigurationProblem(origin: o, key: "profile.\(full)", reason: error.reason)
                }
                profile.values[full] = (check.values[full]!.value, item.line)
            }
        }
        return profile
    }

    private static func value(_ item: TOMLValue, origin: ConfigurationOrigin, key: String) throws(ConfigurationProblem)
        -> ConfigurationValue
    {
        switch item {
        case .integer(let i): return .integer(i)
        case .float(let d): return .number(d)
        case .boolean(let b): return .boolean(b)
        case .string(let s): return .text(s)
        case .array(let elements):
            var list: [String] = []
            for element in elements {
                guard case .string(let s) = element else {
                    throw ConfigurationProblem(
                        origin: origin, key: key, reason: .wrongType("expected a list of strings"))
                }
                list.append(s)
            }
            return .textList(list)
        case .dateTime, .table:
            throw ConfigurationProblem(
                origin: origin, key: key, reason: .wrongType("\(item.noun) is not used by any setting"))
        }
    }

    private static func isDeviceID(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(\.isHexDigit) }
    }
}
