import Foundation
import Testing

@Suite("Configuration between real processes", .serialized)
struct ConfigurationProcessTests {
    /// A user configuration home with `config.toml`, and a system directory with its own.
    func homes(user: String?, system: String?) throws -> (home: String, systemDirectory: String) {
        let home = Mouse3DProcess.makeConfigHome()
        let systemDirectory = Mouse3DProcess.makeConfigHome()
        if let user {
            try FileManager.default.createDirectory(atPath: home + "/mouse3d", withIntermediateDirectories: true)
            try user.write(toFile: home + "/mouse3d/config.toml", atomically: true, encoding: .utf8)
        }
        if let system { try system.write(toFile: systemDirectory + "/config.toml", atomically: true, encoding: .utf8) }
        return (home, systemDirectory)
    }

    @Test("config show: system file < user file < environment < flag layers, each value with its origin")
    func show() throws {
        let (home, system) = try homes(
            user: "[pointer]\nsensitivity = 31\n",
            system: "[pointer]\nsensitivity = 11\ninvert_y = true\n[network]\nport = 25001\n")
        let p = try Mouse3DProcess(
            ["config", "show"], configHome: home,
            environment: ["MOUSE3D_SYSTEM_CONFIG_DIR": system, "MOUSE3D_NETWORK_PORT": "25002"])
        #expect(p.waitForExit() == 0, "\(p.errors)")
        #expect(p.output.contains("pointer.sensitivity = 31.0  # \(home)/mouse3d/config.toml:2"), "\(p.output)")
        #expect(p.output.contains("pointer.invert_y = true  # \(system)/config.toml:3"))
        #expect(p.output.contains("network.port = 25002  # environment MOUSE3D_NETWORK_PORT"))
        #expect(p.output.contains("filter.impact_limit = 0.0  # default"))
    }

    @Test("config check: ok, or the file, line and key of the problem with exit status 1")
    func check() throws {
        let (home, _) = try homes(user: "[receive]\nformat = \"jsonl\"\n\n[pointer]\nsensitivity = -1\n", system: nil)
        let bad = try runMouse3D(["config", "check", home + "/mouse3d/config.toml"])
        #expect(
            bad.status == 1 && bad.errors.contains("\(home)/mouse3d/config.toml:5: pointer.sensitivity: -1 is outside"),
            "\(bad.errors)")
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Config/mouse3d.toml").path
        let good = try runMouse3D(["config", "check", shipped])
        // Every setting of the shipped file: one per `key = value` line.
        let settings = try String(contentsOfFile: shipped, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("#") && !$0.hasPrefix("[") && $0.contains(" = ")
        }.count
        #expect(settings == 46, "the shipped file has \(settings) settings")
        #expect(good.status == 0 && good.output.contains("ok (\(settings) settings"), "\(good)")
        // The malformed mount matrix that used to pass (two rows, five numbers), and a button that does not exist.
        let (home2, _) = try homes(user: "[send]\nmount_matrix = \"1,0,0;0,1\"\n", system: nil)
        let matrix = try runMouse3D(["config", "check", home2 + "/mouse3d/config.toml"])
        #expect(
            matrix.status == 1
                && matrix.errors.contains(
                    "\(home2)/mouse3d/config.toml:2: send.mount_matrix: '1,0,0;0,1' is not a mount matrix"),
            "\(matrix.errors)")
        let (home3, _) = try homes(user: "[send]\nclutch = \"BTN_LEFTISH\"\n", system: nil)
        let button = try runMouse3D(["config", "check", home3 + "/mouse3d/config.toml"])
        #expect(
            button.status == 1
                && button.errors.contains("config.toml:2: send.clutch: 'BTN_LEFTISH' is not a button name"),
            "\(button.errors)")
    }

    /// Eleven malformed values, each on line 3 of its file (a comment line first): what `config check`
    /// must name, and words of the reason.
    static let malformed: [(text: String, key: String, words: String)] = [
        (
            "[send]\n# a rotation that is not one\nmount_matrix = \"2,0,0;0,1,0;0,0,1\"", "send.mount_matrix",
            "not a rotation"
        ),
        ("[send]\n# five numbers\nmount_matrix = \"1,0,0;0,1\"", "send.mount_matrix", "not a mount matrix"),
        ("[send]\n# no such button\nrecenter = \"BTN_NOPE\"", "send.recenter", "not a button name"),
        ("[send]\n# hold or toggle\nclutch_mode = \"sometimes\"", "send.clutch_mode", "'sometimes' is not one of"),
        ("[send]\n# a port past 65535\nto = [\"192.0.2.1:70000\"]", "send.to", "70000"),
        ("[send]\n# not a source\nsource = \"carrier-pigeon\"", "send.source", "carrier-pigeon"),
        ("[send]\n# a rate as text\nrate = \"fast\"", "send.rate", "expected"),
        ("[pointer]\n# two parts, three wanted\nacceleration = \"10:2\"", "pointer.acceleration", "10:2"),
        ("[pointer]\n# out of range\nscreen_turn = 400", "pointer.screen_turn", "outside"),
        (
            "[filter]\n# a time constant below its floor\naccelerometer_time_constant = 0.001",
            "filter.accelerometer_time_constant", "outside"
        ),
        ("[receive]\n# not an address\nlisten = \"over:there:now\"", "receive.listen", "over:there:now")
    ]

    @Test("config check refuses eleven more malformed values, each with its file, line and key", arguments: 0..<11)
    func malformedValues(index: Int) throws {
        let (text, key, words) = Self.malformed[index]
        let (home, _) = try homes(user: text + "\n", system: nil)
        let file = home + "/mouse3d/config.toml"
        let r = try runMouse3D(["config", "check", file])
        #expect(r.status == 1, "\(key): \(r)")
        #expect(r.errors.contains("\(file):3: \(key):") && r.errors.contains(words), "\(r.errors)")
    }

    @Test("A bad configuration stops receive before it listens: nothing is half applied")
    func badConfigurationStops() throws {
        let (home, _) = try homes(user: "[receive]\nformat = \"xml\"\n", system: nil)
        let r = try runMouse3D(["receive", "--insecure", "--listen", "127.0.0.1:0"], configHome: home)
        #expect(r.status == 1)
        #expect(
            r.errors.contains(
                "bad configuration: \(home)/mouse3d/config.toml:2: receive.format: 'xml' is not one of text, jsonl"),
            "\(r.errors)")
        #expect(!r.errors.contains("listening on"))
        let env = try runMouse3D(["receive", "--insecure"], environment: ["MOUSE3D_POINTER_SENSITIVITY": "fast"])
        #expect(
            env.status == 1
                && env.errors.contains(
                    "environment MOUSE3D_POINTER_SENSITIVITY: pointer.sensitivity: 'fast' is not a number"),
            "\(env.errors)")
    }

    @Test(
        "SIGHUP reloads receive's configuration atomically: a valid change applies, an invalid one leaves the running one"
    )
    func sighup() throws {
        let (home, _) = try homes(user: "[receive]\nformat = \"text\"\n", system: nil)
        let file = home + "/mouse3d/config.toml"
        let receiver = try Mouse3DProcess(["receive", "--insecure", "--listen", "127.0.0.1:0"], configHome: home)
        let port = try receiver.listeningPort()
        let sender = try Mouse3DProcess([
            "send", "--insecure", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--loop", "--to",
            "127.0.0.1:\(port)"
        ])
        #expect(receiver.waitForOutput(containing: " roll ", seconds: 20), "text frames first")

        try "[receive]\nformat = \"jsonl\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(receiver.process.processIdentifier, SIGHUP)
        #expect(
            receiver.waitForError(containing: "SIGHUP: configuration reloaded: receive.format = \"jsonl\""),
            "\(receiver.errors)")
        let mark = receiver.output.count
        #expect(
            waitUntil { receiver.output.dropFirst(mark).contains("\"roll\":") },
            "frames are printed as jsonl after the reload")

        try "[receive]\nformat = \"yaml\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(receiver.process.processIdentifier, SIGHUP)
        #expect(
            receiver.waitForError(containing: "SIGHUP: configuration not reloaded, the running one stays"),
            "\(receiver.errors)")
        #expect(receiver.errors.contains("config.toml:2: receive.format: 'yaml' is not one of text, jsonl"))
        // Whole lines printed after the refused reload (the first may be the rest of one in flight).
        let after = receiver.output.count
        #expect(
            waitUntil { receiver.output.dropFirst(after).split(separator: "\n").count >= 4 },
            "frames go on after the refused reload")
        let tail = String(receiver.output.dropFirst(after)).split(separator: "\n").dropFirst().joined(separator: "\n")
        #expect(
            !tail.isEmpty && tail.split(separator: "\n").allSatisfy { $0.hasPrefix("{") },
            "still jsonl: \(tail.prefix(200))")
        #expect(receiver.process.isRunning)
        _ = sender.terminate()
        #expect(receiver.terminate() == 0)
    }
}

/// Polls `condition` for up to `seconds`.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return false
}
