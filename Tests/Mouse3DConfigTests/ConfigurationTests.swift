import Mouse3DConfig
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("Configuration files, layering and profiles")
struct ConfigurationTests {
    func parse(_ text: String, path: String = "/u/config.toml") throws(ConfigurationProblem) -> ConfigurationLayer {
        try ConfigurationFile.parse(text, path: path)
    }

    @Test("A flag set by its typed key is checked like a file's value and read back under the same key")
    func typedSetters() throws {
        var flags = ConfigurationLayer()
        try flags.set(.sendRate, 250, origin: .flag("--rate"))
        try flags.set(.pointerInvertX, true, origin: .flag("--invert-x"))
        try flags.set(.receiveFormat, "jsonl", origin: .flag("--format"))
        try flags.set(.sendTo, ["desk"], origin: .flag("--to"))
        #expect(
            flags.values["send.rate"]?.value == .number(250)
                && flags.values["pointer.invert_x"]?.value == .boolean(true))
        #expect(
            flags.values["receive.format"]?.value == .text("jsonl")
                && flags.values["send.to"]?.value == .textList(["desk"]))
        var refused = flags
        #expect((try? refused.set(.receiveFormat, "xml", origin: .flag("--format"))) == nil, "xml taken as a format")
        do {
            try flags.set(.pointerScreenTurn, 400, origin: .flag("--screen-turn"))
            Issue.record("400 accepted")
        } catch {
            #expect(error.origin == .flag("--screen-turn") && error.key == "pointer.screen_turn", "\(error)")
        }
    }

    @Test("Every typed key names a schema key of its kind, and every schema key has exactly one")
    func typedKeys() {
        let typed = ConfigurationSchema.typedKeys
        #expect(Set(typed.map(\.path)).count == typed.count, "a key typed twice")
        #expect(
            Set(typed.map(\.path)) == Set(ConfigurationSchema.keys.map(\.path)),
            "typed but not in the schema, or the other way: \(Set(typed.map(\.path)).symmetricDifference(ConfigurationSchema.keys.map(\.path)))"
        )
        for (path, type) in typed {
            let expected: Any.Type
            switch ConfigurationSchema.key(path)?.kind {
            case .integer: expected = Int64.self
            case .number: expected = Double.self
            case .boolean: expected = Bool.self
            case .text, .choice: expected = String?.self
            case .textList: expected = [String].self
            case nil: continue
            }
            #expect(
                ObjectIdentifier(type) == ObjectIdentifier(expected),
                "\(path) is typed \(type), its kind wants \(expected)")
        }
        // Each typed read gives the schema's default.
        let c = Configuration.builtIn
        #expect(c[.networkPort] == 24930 && c[.networkPairingPort] == 24931 && c[.networkDiscovery])
        #expect(c[.sendSource] == "auto" && c[.sendClutch] == nil && c[.sendTo].isEmpty)
    }

    func problem(_ text: String) -> ConfigurationProblem? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("The documented default file parses to exactly the built-in defaults")
    func documentedDefaults() throws {
        let layer = try parse(Configuration.documentedDefaults)
        #expect(layer.values.count == ConfigurationSchema.keys.count)
        for key in ConfigurationSchema.keys {
            let expected = try ConfigurationSchema.check(key.defaultValue, for: key).get()
            #expect(layer.values[key.path]?.value == expected, "\(key.path)")
        }
    }

    @Test("Layers: defaults < system file < user file < environment < flags, each value with its origin")
    func layering() throws {
        let system = try parse(
            "[pointer]\nsensitivity = 10\ninvert_x = true\n[network]\nport = 25000\n", path: "/etc/mouse3d/config.toml")
        let user = try parse("# mine\n[pointer]\nsensitivity = 30.5\n", path: "/u/config.toml")
        let environment = try ConfigurationLayer.environment([
            "MOUSE3D_NETWORK_PORT": "26000", "HOME": "/u", "MOUSE3D": "/bin/x"
        ])
        var flags = ConfigurationLayer()
        try flags.set("receive.format", .text("jsonl"), origin: .flag("--format"))
        let c = Configuration(files: [system, user], overrides: [environment, flags])
        #expect(
            c[.pointerSensitivity] == 30.5
                && c.origin(.pointerSensitivity) == .file(path: "/u/config.toml", line: 3))
        #expect(
            c[.pointerInvertX]
                && c.origin(.pointerInvertX) == .file(path: "/etc/mouse3d/config.toml", line: 3))
        #expect(c[.networkPort] == 26000 && c.origin(.networkPort) == .environment("MOUSE3D_NETWORK_PORT"))
        #expect(c[.receiveFormat] == "jsonl" && c.origin(.receiveFormat) == .flag("--format"))
        #expect(c[.filterImpactLimit] == 0 && c.origin(.filterImpactLimit) == .builtIn)
        #expect(c.listing.contains("pointer.sensitivity = 30.5  # /u/config.toml:3"))
    }

    @Test(
        "Errors name the file, the line and the key",
        arguments: [
            ("[pointer]\nsensitivty = 3\n", 2, "pointer.sensitivty", "unknown key"),
            ("[pointer]\n\nsensitivity = \"fast\"\n", 3, "pointer.sensitivity", "expected a number, found a string"),
            ("[network]\nport = 70000\n", 2, "network.port", "outside 1 to 65535"),
            ("[receive]\noutput = \"mouse\"\n", 2, "receive.output", "not one of print, pointer, joystick, spacemouse"),
            ("[pointr]\nx = 1\n", 1, "pointr", "unknown key"),
            ("[filter]\nimpact_limit = -1.0\n", 2, "filter.impact_limit", "outside"),
            ("[filter]\nimpact_limit = 0.5\n", 2, "filter.impact_limit", "outside 0 (off) and 1.5 to 1000"),
            ("[filter]\naccelerometer_range = 1\n", 2, "filter.accelerometer_range", "outside 0 (off) and 2 to 1000"),
            ("[send]\nto = [\"a\", 3]\n", 2, "send.to", "list of strings"),
            ("[send]\nrate = \n", 2, "", "not valid TOML"),
            ("[[profile]]\nname = \"x\"\n", 1, "profile", "needs match_name, match_id or match_path"),
            ("[[profile]]\nname = \"x\"\nmatch_id = \"54c:ce6\"\n", 3, "profile.match_id", "vendor:product"),
            (
                "[[profile]]\nname = \"x\"\nmatch_name = \"y\"\n[profile.pointer]\nsensitivity = 3\n", 4,
                "profile.pointer", "unknown key"
            ),
            (
                "[[profile]]\nname = \"x\"\nmatch_name = \"y\"\n[profile.send]\nto = [\"h\"]\n", 5, "profile.send.to",
                "not a per-device setting"
            ),
            (
                "[[profile]]\nname = \"x\"\nmatch_name = \"y\"\n[profile.filter]\nimpact_limit = 2000\n", 5,
                "profile.filter.impact_limit", "outside"
            ),
            // Values checked the way the commands that use them check them.
            ("[send]\nmount_matrix = \"1,0,0;0,1\"\n", 2, "send.mount_matrix", "not a mount matrix"),
            ("[send]\n\nmount_matrix = \"1,0,0;0,2,0;0,0,1\"\n", 3, "send.mount_matrix", "not a rotation"),
            ("[send]\nmount_matrix = \"1,0,0;1,0,0;0,0,1\"\n", 2, "send.mount_matrix", "not a rotation"),
            ("[send]\nclutch = \"BTN_NOPE\"\n", 2, "send.clutch", "not a button name"),
            ("[send]\nrecenter = \"south\"\n", 2, "send.recenter", "not a button name"),
            (
                "[[profile]]\nname = \"x\"\nmatch_name = \"y\"\n[profile.send]\nprimary = \"BTN_X1\"\n", 5,
                "profile.send.primary", "not a button name"
            ),
            ("[pointer]\nacceleration = \"10:5:2\"\n", 2, "pointer.acceleration", "not LOW:HIGH:FACTOR"),
            ("[pointer]\nacceleration = \"10:50\"\n", 2, "pointer.acceleration", "not LOW:HIGH:FACTOR"),
            // A kind no entry knows (usb:3) is the source catalog's to refuse: SourceCatalogTests.
            ("[send]\nsource = \"replay:\"\n", 2, "send.source", "not a source"),
            ("[receive]\nlisten = \"300.1.1.1\"\n", 2, "receive.listen", "not an address"),
            ("[receive]\nlisten = \"host name\"\n", 2, "receive.listen", "not an address"),
            ("[send]\nto = [\"pc.local:24930\", \"pc.local:99999\"]\n", 2, "send.to", "outside 1 to 65535"),
            ("[send]\nto = [\"pc.local:\"]\n", 2, "send.to", "no port")
        ])
    func errors(text: String, line: Int, key: String, message: String) {
        guard let p = problem(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(p.origin == .file(path: "/u/config.toml", line: line), "\(p)")
        #expect(p.key == key, "\(p)")
        #expect(p.description.hasPrefix("/u/config.toml:\(line)") && p.description.contains(message), "\(p)")
    }

    @Test("Good values of the checked settings pass")
    func goodValues() throws {
        let text =
            "[send]\nmount_matrix = \"0,-1,0;1,0,0;0,0,1\"\nclutch = \"BTN_TL\"\nsource = \"evdev:/dev/input/event3\"\n"
            + "to = [\"desk\", \"192.168.1.5:24930\", \"[::1]:9\"]\n[pointer]\nacceleration = \"5:60:2.5\"\n[receive]\nlisten = \"::\"\n"
        #expect(problem(text) == nil, "\(problem(text).map(String.init(describing:)) ?? "")")
        #expect(problem("[send]\nmount_matrix = \"-1,0,0;0,1,0;0,0,1\"\n") == nil, "a mirror is allowed")
        #expect(problem("[receive]\nlisten = \"mouse3d-receiver.local\"\n") == nil)
    }

    @Test("Environment values are parsed per type; bad ones and unknown keys are errors naming the variable")
    func environment() throws {
        let layer = try ConfigurationLayer.environment([
            "MOUSE3D_SEND_TO": "a, b:1", "MOUSE3D_FILTER_MOTION_BIAS": "false"
        ])
        #expect(layer.values["send.to"]?.value == .textList(["a", "b:1"]))
        #expect(layer.values["filter.motion_bias"]?.value == .boolean(false))
        #expect(throws: ConfigurationProblem.self) { try ConfigurationLayer.environment(["MOUSE3D_NETWORK_PORT": "x"]) }
        do {
            _ = try ConfigurationLayer.environment(["MOUSE3D_POINTER_SPEED": "2"])
            Issue.record("unknown environment key accepted")
        } catch {
            #expect(error.description.contains("environment MOUSE3D_POINTER_SPEED"))
        }
    }

    @Test(
        "Profiles match by name, id or sysfs path prefix (all given must match); later files win; env and flags still override"
    )
    func profiles() throws {
        let system = try parse(
            """
            [[profile]]
            name = "any Sony"
            match_id = "054c:0ce6"
            [profile.send]
            clutch = "BTN_TR"
            """, path: "/etc/mouse3d/config.toml")
        let user = try parse(
            """
            [send]
            clutch = "BTN_WEST"

            [[profile]]
            name = "DualSense"
            match_id = "054C:0CE6"
            match_name = "DualSense Motion Sensors"
            [profile.send]
            clutch = "BTN_TL"
            [profile.filter]
            impact_limit = 8
            [profile.gamepad]
            sensitivity = 1.5
            inner_dead_zone = 0.2

            [[profile]]
            name = "laptop"
            match_path = "/sys/devices/pci0000:00/0000:00:13.0"
            send.mount_matrix = "0,1,0;1,0,0;0,0,1"
            """, path: "/u/config.toml")
        var c = Configuration(
            files: [system, user], overrides: [try ConfigurationLayer.environment(["MOUSE3D_FILTER_IMPACT_LIMIT": "6"])]
        )
        #expect(c[.sendClutch] == "BTN_WEST")
        let pad = DeviceProfile.Device(
            name: "DualSense Motion Sensors", id: "054c:0ce6", sysfsPath: "/sys/devices/virtual/x")
        let applied = c.applyProfile(for: pad)
        let matched = try #require(applied)
        #expect(matched.profile.name == "DualSense" && matched.reason.contains("id 054C:0CE6"))
        #expect(
            c[.sendClutch] == "BTN_TL"
                && c.origin(.sendClutch) == .profile(name: "DualSense", path: "/u/config.toml", line: 9))
        #expect(c[.filterImpactLimit] == 6, "the environment still overrides a profile")
        #expect(c[.gamepadSensitivity] == 1.5 && c[.gamepadInnerDeadZone] == 0.2, "the gyro stick per device")
        let other = DeviceProfile.Device(name: "Other Sony", id: "054c:0ce6", sysfsPath: "/x")
        let sony = c.applyProfile(for: other)
        #expect(sony?.profile.name == "any Sony")
        #expect(c[.sendClutch] == "BTN_TR")
        let laptop = DeviceProfile.Device(
            name: "accel_3d", id: nil, sysfsPath: "/sys/devices/pci0000:00/0000:00:13.0/iio:device0")
        let lap = c.applyProfile(for: laptop)
        #expect(lap?.profile.name == "laptop")
        #expect(c[.sendMountMatrix] == "0,1,0;1,0,0;0,0,1")
        let none = c.applyProfile(for: DeviceProfile.Device(name: "n", id: "1234:5678", sysfsPath: "/p"))
        #expect(none == nil)
        #expect(c[.sendClutch] == "BTN_WEST", "no profile: back to the files")
    }
}

@Suite("The shipped default file")
struct ShippedDefaultsTests {
    @Test("Config/mouse3d.toml is exactly the documented defaults (regenerate with `mouse3d config defaults`)")
    func shipped() throws {
        let path = String(#filePath.prefix { _ in true }).split(separator: "/").dropLast(3).joined(separator: "/")
        let file = "/" + path + "/Config/mouse3d.toml"
        let text = String(decoding: try FileContents.read(path: file), as: UTF8.self)
        #expect(text == Configuration.documentedDefaults)
    }
}

@Suite("The README's configuration examples")
struct ReadmeExamplesTests {
    @Test("Every example with a [[profile]] in the README is a valid configuration")
    func examples() throws {
        let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let readme = String(decoding: try FileContents.read(path: root + "/README.md"), as: UTF8.self)
        var blocks: [[String]] = [[]]
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("    ") {
                blocks[blocks.count - 1].append(String(line.dropFirst(4)))
            } else if !line.isEmpty, !blocks[blocks.count - 1].isEmpty {
                blocks.append([])
            }
        }
        let examples = blocks.map { $0.joined(separator: "\n") }.filter { $0.contains("[[profile]]") }
        #expect(examples.count == 2)
        for example in examples {
            let layer = try ConfigurationFile.parse(example, path: "README")
            #expect(layer.profiles.count == 1)
        }
    }
}
