import Mouse3DCore
import Mouse3DLinux
import TOMLKit

/// Reads a mouse3d TOML configuration file (TOMLKit, over toml++) into a checked layer: unknown
/// keys, wrong types and out-of-range values are problems naming the file, line and key.
public enum ConfigurationFile {
    /// The layer of the file at `path`, or nil if there is no such file.
    public static func load(path: String) throws(ConfigurationProblem) -> ConfigurationLayer? {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.read(path: path)
        } catch {
            if error.errno == .noSuchFileOrDirectory { return nil }
            throw ConfigurationProblem(origin: .file(path: path, line: 0), key: "", reason: .invalid("cannot read: \(error.errno)"))
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// The layer of `text` read from `path`.
    public static func parse(_ text: String, path: String) throws(ConfigurationProblem) -> ConfigurationLayer {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationProblem(origin: .file(path: path, line: error.source.begin.line), key: "", reason: .syntax(error.description))
        } catch {
            throw ConfigurationProblem(origin: .file(path: path, line: 0), key: "", reason: .syntax("\(error)"))
        }
        let lines = KeyLines(text)
        var layer = ConfigurationLayer()
        for name in table.keys {
            let item = table[name]!
            if name == "profile" {
                guard let array = item.array else {
                    throw ConfigurationProblem(origin: .file(path: path, line: lines.line(of: name)), key: name,
                        reason: .wrongType("profiles are written [[profile]]"))
                }
                for (index, element) in array.enumerated() {
                    guard let profileTable = element.table else {
                        throw ConfigurationProblem(origin: .file(path: path, line: lines.line(of: name)), key: name,
                            reason: .wrongType("profiles are written [[profile]]"))
                    }
                    layer.profiles.append(try profile(profileTable, index: index, lines: lines, path: path))
                }
                continue
            }
            guard ConfigurationSchema.sections.contains(name) else {
                throw ConfigurationProblem(origin: .file(path: path, line: lines.line(of: name)), key: name,
                    reason: .unknownKey("sections are " + ConfigurationSchema.sections.joined(separator: ", ") + ", and [[profile]]"))
            }
            guard let section = item.table else {
                throw ConfigurationProblem(origin: .file(path: path, line: lines.line(of: name)), key: name,
                    reason: .wrongType("[\(name)] must be a table"))
            }
            for key in section.keys {
                let full = "\(name).\(key)"
                let origin = ConfigurationOrigin.file(path: path, line: lines.line(of: full))
                try layer.set(full, try value(section[key]!, origin: origin, key: full), origin: origin)
                try checkButton(full, layer.values[full]?.value, origin: origin)
            }
        }
        return layer
    }

    /// The settings that name a gamepad button.
    static let buttonKeys: Set<String> = ["send.clutch", "send.recenter", "send.primary", "send.secondary", "send.recalibrate"]

    /// A button setting must name a button libevdev knows (`BTN_TL`, `KEY_A`...), as send and run check it.
    static func checkButton(_ path: String, _ value: ConfigurationValue?, origin: ConfigurationOrigin) throws(ConfigurationProblem) {
        let bare = path.hasPrefix("profile.") ? String(path.split(separator: ".").suffix(2).joined(separator: ".")) : path
        guard buttonKeys.contains(bare), case .text(let name)? = value, !name.isEmpty else { return }
        guard GamepadButtons.code(named: name) != nil else {
            throw ConfigurationProblem(origin: origin, key: path, reason: .invalid("'\(name)' is not a button name (BTN_SOUTH, BTN_TL, BTN_TR2...: `evtest` shows them)"))
        }
    }

    private static func profile(_ table: TOMLTable, index: Int, lines: KeyLines, path: String) throws(ConfigurationProblem) -> DeviceProfile {
        let start = lines.profileLine(index)
        func origin(_ key: String) -> ConfigurationOrigin { .file(path: path, line: lines.line(of: key, profile: index) ?? start) }
        func string(_ key: String) throws(ConfigurationProblem) -> String? {
            guard let item = table[key] else { return nil }
            guard let s = item.string else { throw ConfigurationProblem(origin: origin(key), key: "profile.\(key)", reason: .wrongType("expected a string")) }
            return s
        }
        guard let name = try string("name") else {
            throw ConfigurationProblem(origin: .file(path: path, line: start), key: "profile", reason: .invalid("a profile needs a name"))
        }
        var profile = DeviceProfile(
            name: name, matchName: try string("match_name"), matchID: try string("match_id"), matchPath: try string("match_path"),
            values: [:], path: path, line: start)
        guard profile.matchName != nil || profile.matchID != nil || profile.matchPath != nil else {
            throw ConfigurationProblem(origin: .file(path: path, line: start), key: "profile",
                reason: .invalid("profile '\(name)' needs match_name, match_id or match_path"))
        }
        if let id = profile.matchID, !isDeviceID(id) {
            throw ConfigurationProblem(origin: origin("match_id"), key: "profile.match_id", reason: .invalid("'\(id)' is not vendor:product in hex, e.g. 054c:0ce6"))
        }
        for key in table.keys where !["name", "match_name", "match_id", "match_path"].contains(key) {
            guard ["send", "filter"].contains(key), let section = table[key]!.table else {
                throw ConfigurationProblem(origin: origin(key), key: "profile.\(key)",
                    reason: .unknownKey("a profile has name, match_name, match_id, match_path, [profile.send] and [profile.filter]"))
            }
            for inner in section.keys {
                let full = "\(key).\(inner)"
                let o = origin(full)
                guard let schemaKey = ConfigurationSchema.key(full) else {
                    throw ConfigurationProblem(origin: o, key: "profile.\(full)", reason: .unknownKey(""))
                }
                guard schemaKey.inProfiles else {
                    throw ConfigurationProblem(origin: o, key: "profile.\(full)", reason: .invalid("not a per-device setting; set it in [\(key)]"))
                }
                var check = ConfigurationLayer()
                do {
                    try check.set(full, try value(section[inner]!, origin: o, key: full), origin: o)
                    try checkButton(full, check.values[full]?.value, origin: o)
                } catch {
                    throw ConfigurationProblem(origin: o, key: "profile.\(full)", reason: error.reason)
                }
                profile.values[full] = (check.values[full]!.value, lines.line(of: full, profile: index) ?? start)
            }
        }
        return profile
    }

    private static func value(_ item: TOMLValueConvertible, origin: ConfigurationOrigin, key: String) throws(ConfigurationProblem) -> ConfigurationValue {
        switch item.type {
        case .int: return .integer(Int64(item.int!))
        case .double: return .number(item.double!)
        case .bool: return .boolean(item.bool!)
        case .string: return .text(item.string!)
        case .array:
            var list: [String] = []
            for element in item.array! {
                guard let s = element.string else { throw ConfigurationProblem(origin: origin, key: key, reason: .wrongType("expected a list of strings")) }
                list.append(s)
            }
            return .textList(list)
        default:
            throw ConfigurationProblem(origin: origin, key: key, reason: .wrongType("a \(item.type) is not used by any setting"))
        }
    }

    private static func isDeviceID(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(\.isHexDigit) }
    }
}

/// Where keys are in a TOML text, for error messages (TOMLKit gives positions only for syntax
/// errors). A line scanner, not a parser: it follows `[table]` and `[[profile]]` headers and the
/// `key =` at the start of lines.
struct KeyLines {
    private var lines: [String: Int] = [:]
    private var profileStarts: [Int] = []

    init(_ text: String) {
        var table = ""
        var profile: Int?
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[[") {
                let name = line.dropFirst(2).prefix { $0 != "]" }.filter { $0 != " " }
                table = String(name)
                if table == "profile" {
                    profileStarts.append(number)
                    profile = profileStarts.count - 1
                }
                lines[table] = lines[table] ?? number
            } else if line.hasPrefix("[") {
                let name = String(line.dropFirst().prefix { $0 != "]" }.filter { $0 != " " })
                if name.hasPrefix("profile."), let p = profile {
                    table = "#\(p)." + name.dropFirst("profile.".count)
                } else {
                    table = name
                    profile = nil
                }
                lines[table] = lines[table] ?? number
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = line[..<equals].filter { $0 != " " && $0 != "\t" && $0 != "\"" }
                let full: String
                if let p = profile, table == "profile" {
                    full = "#\(p).\(key)"
                } else {
                    full = table.isEmpty ? String(key) : "\(table).\(key)"
                }
                lines[full] = lines[full] ?? number
            }
        }
    }

    /// The line of `section.key` (or a top-level name); 0 if not found.
    func line(of key: String) -> Int { lines[key] ?? 0 }

    /// The line of `key` (`send.clutch`, `name`) inside profile number `profile`.
    func line(of key: String, profile: Int) -> Int? { lines["#\(profile).\(key)"] }

    /// The line of the `[[profile]]` header of profile number `index`.
    func profileLine(_ index: Int) -> Int { index < profileStarts.count ? profileStarts[index] : 0 }
}
