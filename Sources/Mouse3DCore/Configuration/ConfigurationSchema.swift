/// Every setting mouse3d reads from configuration: its section, name, type, default, allowed values
/// and a one-line comment. The documented default file (Config/mouse3d.toml) is rendered from this.
public enum ConfigurationSchema {
    /// What a setting holds.
    public enum Kind: Sendable, Equatable {
        case integer(ClosedRange<Int64>)
        case number(ClosedRange<Double>)
        case boolean
        case text
        case choice([String])
        case textList
    }

    /// One setting.
    public struct Key: Sendable {
        /// `section.name`.
        public let path: String
        public let kind: Kind
        public let defaultValue: ConfigurationValue
        public let comment: String
        /// Whether a device profile may set it (sender-side settings).
        public let inProfiles: Bool

        public var section: Substring { path.prefix { $0 != "." } }
        public var name: Substring { path.drop { $0 != "." }.dropFirst() }
        /// `MOUSE3D_SECTION_NAME`.
        public var environmentName: String { "MOUSE3D_" + path.uppercased().replacingDots() }
    }

    /// The sections, in file order.
    public static let sections = ["network", "send", "filter", "receive", "pointer", "gamepad"]

    /// Every key, in file order.
    public static let keys: [Key] = [
        Key(
            path: "network.port", kind: .integer(1...65535), defaultValue: .integer(24930),
            comment: "UDP port receive listens on and send sends to (when --to gives none)", inProfiles: false),
        Key(
            path: "network.pairing_port", kind: .integer(1...65535), defaultValue: .integer(24931),
            comment: "UDP port `mouse3d pair` waits on", inProfiles: false),
        Key(
            path: "network.discovery", kind: .boolean, defaultValue: .boolean(true),
            comment: "receive announces itself and send finds paired receivers through Avahi (DNS-SD)",
            inProfiles: false),
        Key(
            path: "send.source", kind: .text, defaultValue: .text("auto"),
            comment: "motion source: auto, evdev:/dev/input/eventN, iio:NAME or replay:LOG.csv", inProfiles: false),
        Key(
            path: "send.to", kind: .textList, defaultValue: .textList([]),
            comment: "receivers, HOST[:PORT] or paired names; empty: every paired receiver", inProfiles: false),
        Key(
            path: "send.rate", kind: .number(0...100_000), defaultValue: .number(0),
            comment: "send the latest attitude at this rate in Hz; 0: one datagram per sample", inProfiles: true),
        Key(
            path: "send.clutch", kind: .text, defaultValue: .text(""),
            comment: "button that enables motion (BTN_* name, e.g. BTN_TL); empty: motion always on", inProfiles: true),
        Key(
            path: "send.clutch_mode", kind: .choice(["hold", "toggle", "hold-off"]), defaultValue: .text("hold"),
            comment:
                "hold: motion while the clutch is held; toggle: each press switches it; hold-off: motion except while it is held",
            inProfiles: true),
        Key(
            path: "send.recenter", kind: .text, defaultValue: .text(""),
            comment: "button that makes the current attitude zero, e.g. BTN_SOUTH; empty: none (SIGUSR1 still does)",
            inProfiles: true),
        Key(
            path: "send.primary", kind: .text, defaultValue: .text(""),
            comment: "button sent as the primary click, e.g. BTN_TR; empty: none", inProfiles: true),
        Key(
            path: "send.secondary", kind: .text, defaultValue: .text(""),
            comment: "button sent as the secondary click, e.g. BTN_TR2; empty: none", inProfiles: true),
        Key(
            path: "send.recalibrate", kind: .text, defaultValue: .text(""),
            comment:
                "button that measures the gyroscope bias anew: press, put the controller down for 5 s; empty: none",
            inProfiles: true),
        Key(
            path: "send.iio_poll", kind: .number(0...10_000), defaultValue: .number(0),
            comment: "read IIO sensors by polling *_raw at this rate in Hz; 0: through the buffer", inProfiles: true),
        Key(
            path: "send.mount_matrix", kind: .text, defaultValue: .text(""),
            comment: "IIO mount matrix override 'x1,y1,z1;x2,y2,z2;x3,y3,z3'; empty: the driver's", inProfiles: true),
        Key(
            path: "filter.accelerometer_time_constant", kind: .number(0.05...1000), defaultValue: .number(2),
            comment: "accelerometer low-pass time constant, s (larger trusts the gyroscope longer)", inProfiles: true),
        Key(
            path: "filter.impact_limit", kind: .number(0...1000), defaultValue: .number(0),
            comment:
                "specific force above this many g is shortened to it before filtering (0: never; a limit breaks the zero mean of hard shaking)",
            inProfiles: true),
        Key(
            path: "filter.accelerometer_range", kind: .number(0...1000), defaultValue: .number(0),
            comment:
                "the accelerometer's range per axis in g (e.g. 4 for a ±4 g sensor), so saturated readings are cut alike on both sides (0: unknown)",
            inProfiles: true),
        Key(
            path: "filter.linear_acceleration_rejection", kind: .number(0.001...100), defaultValue: .number(0.1),
            comment: "skip corrections while the filtered force differs from 1 g by more than this fraction",
            inProfiles: true),
        Key(
            path: "filter.disturbance_angle", kind: .number(0...89.999), defaultValue: .number(15),
            comment: "skip corrections while the averaged force leans more than this many degrees (0: never)",
            inProfiles: true),
        Key(
            path: "filter.disturbance_time_constant", kind: .number(0.001...100), defaultValue: .number(2),
            comment: "time constant of that average, s", inProfiles: true),
        Key(
            path: "filter.motion_bias", kind: .boolean, defaultValue: .boolean(true),
            comment: "estimate the gyroscope bias while the sensor moves", inProfiles: true),
        Key(
            path: "filter.rest_bias", kind: .boolean, defaultValue: .boolean(true),
            comment: "estimate the gyroscope bias while the sensor rests", inProfiles: true),
        Key(
            path: "receive.listen", kind: .text, defaultValue: .text("0.0.0.0"),
            comment: "address receive listens on (sealed frames; --insecure and --raw use loopback unless --listen)",
            inProfiles: false),
        Key(
            path: "receive.output", kind: .choice(["print", "pointer", "joystick", "spacemouse", "gamepad"]),
            defaultValue: .text("print"),
            comment:
                "print frames, or drive a virtual pointer, joystick, spacemouse (6-DoF for spacenavd) or gamepad (gyro on a stick, for games)",
            inProfiles: false),
        Key(
            path: "receive.format", kind: .choice(["text", "jsonl"]), defaultValue: .text("text"),
            comment: "print format: text (degrees) or jsonl (radians)", inProfiles: false),
        Key(
            path: "receive.stats", kind: .boolean, defaultValue: .boolean(false),
            comment: "print per-sender statistics once a second", inProfiles: false),
        Key(
            path: "pointer.sensitivity", kind: .number(0.001...100_000), defaultValue: .number(20),
            comment: "pointer counts (pixels, with a flat pointer profile) per degree of turn", inProfiles: false),
        Key(
            path: "pointer.screen_turn", kind: .number(0...360), defaultValue: .number(0),
            comment:
                "degrees of turn that cross the screen's width (natural sensitivity; overrides sensitivity; 0: unused)",
            inProfiles: false),
        Key(
            path: "pointer.screen_width", kind: .number(1...100_000), defaultValue: .number(1920),
            comment: "the screen's width in pixels, for screen_turn", inProfiles: false),
        Key(
            path: "pointer.gyro_space", kind: .choice(["local", "player", "world"]), defaultValue: .text("world"),
            comment:
                "which turns move the pointer: local (the controller's axes), player (sideways about gravity, up and down about the controller's pitch axis) or world",
            inProfiles: false),
        Key(
            path: "pointer.tightening", kind: .number(0...10_000), defaultValue: .number(0),
            comment: "below this speed (°/s) motion is scaled down in proportion, to hide tremor (0: off)",
            inProfiles: false),
        Key(
            path: "pointer.smoothing", kind: .number(0...10_000), defaultValue: .number(0),
            comment: "below this speed (°/s) motion is averaged over 0.1 s (0: off)", inProfiles: false),
        Key(
            path: "pointer.acceleration", kind: .text, defaultValue: .text(""),
            comment: "LOW:HIGH:FACTOR: sensitivity rises from 1x at LOW °/s to FACTORx at HIGH °/s; empty: none",
            inProfiles: false),
        Key(
            path: "pointer.invert_x", kind: .boolean, defaultValue: .boolean(false),
            comment: "mirror horizontal motion", inProfiles: false),
        Key(
            path: "pointer.invert_y", kind: .boolean, defaultValue: .boolean(false), comment: "mirror vertical motion",
            inProfiles: false),
        Key(
            path: "pointer.swap_axes", kind: .boolean, defaultValue: .boolean(false), comment: "exchange the axes",
            inProfiles: false),
        Key(
            path: "gamepad.stick", kind: .choice(["right", "left"]), defaultValue: .text("right"),
            comment: "the virtual gamepad's stick the gyroscope drives (the real stick's deflection is added)",
            inProfiles: true),
        Key(
            path: "gamepad.sensitivity", kind: .number(0.001...1000), defaultValue: .number(1),
            comment: "the game's camera turn per degree the controller turns (1: as the controller does)",
            inProfiles: true),
        Key(
            path: "gamepad.full_speed", kind: .number(1...100_000), defaultValue: .number(360),
            comment: "the game's camera speed at full stick deflection, °/s (faster turns are capped there)",
            inProfiles: true),
        Key(
            path: "gamepad.inner_dead_zone", kind: .number(0...0.95), defaultValue: .number(0),
            comment: "the game's stick dead zone as a fraction of the stick's reach: the smallest turn starts past it",
            inProfiles: true),
        Key(
            path: "gamepad.outer_dead_zone", kind: .number(0...0.95), defaultValue: .number(0),
            comment: "the part of the stick's reach at its edge that the game already takes as full", inProfiles: true
        ),
        Key(
            path: "gamepad.power", kind: .number(0.05...20), defaultValue: .number(1),
            comment: "the exponent of the game's stick curve (its speed grows as deflection^power; 1: linear)",
            inProfiles: true),
        Key(
            path: "gamepad.rest_speed", kind: .number(0...1000), defaultValue: .number(1),
            comment: "turns slower than this (°/s) move nothing, so the stick rests centred while the controller does",
            inProfiles: true),
        Key(
            path: "gamepad.gyro_space", kind: .choice(["local", "player", "world"]), defaultValue: .text("player"),
            comment: "which turns move the stick, as for the pointer", inProfiles: true),
        Key(
            path: "gamepad.invert_x", kind: .boolean, defaultValue: .boolean(false),
            comment: "mirror the stick's horizontal motion", inProfiles: true),
        Key(
            path: "gamepad.invert_y", kind: .boolean, defaultValue: .boolean(false),
            comment: "mirror the stick's vertical motion", inProfiles: true)
    ]

    /// The key at `path`.
    public static func key(_ path: String) -> Key? { keys.first { $0.path == path } }

    /// `1000` for 1000.0, `0.05` for 0.05: numbers as a person writes them.
    static func numberText(_ d: Double) -> String {
        d.isFinite && d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
    }

    /// Checks `value` for `key`: its type (a whole number is taken where a number is wanted) and
    /// range. Returns the value in the key's own type, or a message.
    public static func check(_ value: ConfigurationValue, for key: Key) -> Result<
        ConfigurationValue, ConfigurationProblem.Reason
    > {
        switch (key.kind, value) {
        case (.integer(let range), .integer(let i)):
            return range.contains(i)
                ? .success(value) : .failure(.outOfRange("\(i) is outside \(range.lowerBound) to \(range.upperBound)"))
        case (.number, .integer(let i)):
            return check(.number(Double(i)), for: key)
        case (.number(let range), .number(let d)):
            guard d.isFinite && range.contains(d) else {
                return .failure(
                    .outOfRange(
                        "\(numberText(d)) is outside \(numberText(range.lowerBound)) to \(numberText(range.upperBound))"
                    ))
            }
            // Settings where 0 means "off" and small values make no sense.
            let floors = ["filter.impact_limit": 1.5, "filter.accelerometer_range": 2.0]
            if let floor = floors[key.path], d > 0, d < floor {
                return .failure(
                    .outOfRange(
                        "\(numberText(d)) is outside 0 (off) and \(numberText(floor)) to \(numberText(range.upperBound))"
                    ))
            }
            return .success(value)
        case (.boolean, .boolean):
            return .success(value)
        case (.text, .text(let text)):
            return textProblem(key.path, text).map { .failure(.invalid($0)) } ?? .success(value)
        case (.textList, .textList(let items)):
            for item in items { if let problem = textProblem(key.path, item) { return .failure(.invalid(problem)) } }
            return .success(value)
        case (.choice(let allowed), .text(let s)):
            return allowed.contains(s)
                ? .success(value) : .failure(.outOfRange("'\(s)' is not one of \(allowed.joined(separator: ", "))"))
        default:
            return .failure(.wrongType("expected \(key.kind.noun), found \(value.noun)"))
        }
    }

    /// `KIND` or `KIND:VALUE`: a kind of lower-case letters, digits and '-', and a value, when given,
    /// that is not empty.
    static func isSourceShape(_ text: String) -> Bool {
        let kind = text.prefix { $0 != ":" }
        let isKind =
            !kind.isEmpty && kind.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        return isKind && (kind.count == text.count || text.count > kind.count + 1)
    }

    /// What is wrong with `text` for the text setting at `path`, checked the way the command that
    /// uses it checks it, or nil. (Button names are checked against libevdev's table where files are
    /// read, in Mouse3DConfig: that table is the Linux layer's.)
    public static func textProblem(_ path: String, _ text: String) -> String? {
        switch path {
        case "send.mount_matrix":
            guard !text.isEmpty else { return nil }
            guard let m = MountMatrix(text) else {
                return
                    "'\(text)' is not a mount matrix: nine numbers, three rows separated by ';' ('1,0,0;0,1,0;0,0,1')"
            }
            return m.isRotation
                ? nil
                : "'\(text)' is not a rotation: its rows must be unit length and at right angles (a mirror is allowed)"
        case "pointer.acceleration":
            guard !text.isEmpty else { return nil }
            return PointerMapping.accelerationCurve(text) == nil
                ? "'\(text)' is not LOW:HIGH:FACTOR with 0 <= LOW < HIGH and FACTOR > 0" : nil
        case "send.source":
            // Only its shape, KIND or KIND:VALUE: which kinds there are, and what each takes, is the
            // source catalog's (Mouse3DAssembly, above this layer), which checks the setting where a
            // command uses it and `config check` reads a file, naming this file and line.
            return isSourceShape(text)
                ? nil
                : "'\(text)' is not a source: KIND or KIND:VALUE, such as auto, evdev:/dev/input/eventN, iio:NAME, replay:LOG.csv or phone[:[ADDR:]PORT]"
        case "receive.listen":
            return isHost(text) ? nil : "'\(text)' is not an address or host name (e.g. 0.0.0.0, ::, 192.168.1.5)"
        case "send.to":
            // HOST:PORT with a port in range, or a paired receiver's name.
            if let colon = text.lastIndex(of: ":"), !text.contains("]") || text.hasPrefix("["),
                text.filter({ $0 == ":" }).count == 1 || text.hasPrefix("[")
            {
                let port = text[text.index(after: colon)...]
                if let n = Int(port), !(1...65535).contains(n) { return "'\(text)': port \(n) is outside 1 to 65535" }
                if port.isEmpty { return "'\(text)': no port after ':'" }
            }
            return text.allSatisfy({ $0 == " " || $0 == "\t" }) ? "an empty receiver" : nil
        default:
            return nil
        }
    }

    /// Whether `text` is a numeric IPv4 or IPv6 address or a host name.
    static func isHost(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 253 else { return false }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ Int($0) != nil }) {
            return parts.allSatisfy { Int($0)! >= 0 && Int($0)! <= 255 }
        }
        if text.contains(":") {
            return text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } && text.filter({ $0 == ":" }).count >= 2
        }
        return parts.allSatisfy {
            !$0.isEmpty && $0.count <= 63 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
                && $0.first != "-"
        }
            && !parts.allSatisfy({ $0.allSatisfy(\.isNumber) })
    }

    /// Parses environment text for `key` (numbers, true/false, comma-separated lists).
    public static func parse(environment text: String, for key: Key) -> ConfigurationValue? {
        switch key.kind {
        case .integer: return Int64(text).map(ConfigurationValue.integer)
        case .number: return Double(text).map(ConfigurationValue.number)
        case .boolean:
            switch text.lowercased() {
            case "true", "1", "yes": return .boolean(true)
            case "false", "0", "no": return .boolean(false)
            default: return nil
            }
        case .text, .choice: return .text(text)
        case .textList: return .textList(text.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty })
        }
    }
}

extension ConfigurationSchema.Kind {
    var noun: String {
        switch self {
        case .integer: "a whole number"
        case .number: "a number"
        case .boolean: "true or false"
        case .text, .choice: "a string"
        case .textList: "a list of strings"
        }
    }
}

extension String {
    func replacingDots() -> String { String(map { $0 == "." ? "_" : $0 }) }
    var trimmed: String { String(Substring(self).trimmingSpaces) }
}
