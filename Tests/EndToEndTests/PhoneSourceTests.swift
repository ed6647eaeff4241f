import Foundation
import Testing

@Suite("--source phone against a running mouse3d")
struct PhoneSourceTests {
    /// Starts `run --source phone` on a free loopback port; returns the URL it printed, then stops it.
    static func url(home: String, _ extra: [String] = []) throws -> String {
        let run = try Mouse3DProcess(
            ["run", "--source", "phone:127.0.0.1:0", "--print"] + extra, configHome: home,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data"])
        defer { _ = run.terminate() }
        #expect(run.waitForError(containing: "running phone on port", seconds: 20), "\(run.errors)")
        let line = try #require(run.errors.split(separator: "\n").first { $0.contains("phone: https://") })
        return String(try #require(line.split(separator: " ").first { $0.hasPrefix("https://") }))
    }

    @Test(
        "A fresh URL token each run, with --phone-remember too (a remembered phone keeps a key of its own instead, Tests/Browser/phone_attack_test.py); pair --revoke phone forgets the keys; the certificate is kept, its key 0600"
    )
    func freshTokensAndRevoke() throws {
        let home = Mouse3DProcess.makeConfigHome()
        func token(_ url: String) -> Substring { url.split(separator: "#").last ?? "" }
        let a = try Self.url(home: home)
        let b = try Self.url(home: home)
        #expect(token(a).count == 22 && token(a) != token(b), "fresh tokens: \(a) \(b)")
        let r1 = try Self.url(home: home, ["--phone-remember"])
        let r2 = try Self.url(home: home, ["--phone-remember"])
        #expect(token(r1) != token(r2) && token(r1) != token(a), "the URL's token never outlives its run: \(r1) \(r2)")
        let none = try runMouse3D(["pair", "--revoke", "phone"], configHome: home)
        #expect(none.status != 0 && none.errors.contains("no phone is remembered"), "nothing to forget: \(none)")
        // A remembered phone's key, as the phone source stores it (0600, one a line).
        let secrets = home + "/mouse3d/phone.secrets"
        try FileManager.default.createDirectory(
            atPath: home + "/mouse3d", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(
            FileManager.default.createFile(
                atPath: secrets, contents: Data((String(repeating: "ab", count: 16) + "\n").utf8),
                attributes: [.posixPermissions: 0o600]))
        let revoked = try runMouse3D(["pair", "--revoke", "phone"], configHome: home)
        #expect(revoked.status == 0 && revoked.output.contains("forgot the remembered phones"), "\(revoked)")
        #expect(!FileManager.default.fileExists(atPath: secrets), "the keys' file is gone")
        let key = home + "/data/mouse3d/phone/key.pem"
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "key mode \(String(mode, radix: 8))")
    }

    /// Runs `arguments` and waits up to 10 s for the process to end by itself (SIGKILL after that:
    /// a process stuck in `open` on a FIFO ignores SIGTERM); its status, or nil if it had to be killed.
    static func endsByItself(_ arguments: [String], home: String) throws -> (status: Int32?, errors: String) {
        let run = try Mouse3DProcess(
            arguments, configHome: home, environment: ["HOME": home, "XDG_DATA_HOME": home + "/data"])
        let end = Date().addingTimeInterval(10)
        while run.process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        guard !run.process.isRunning else {
            kill(run.process.processIdentifier, SIGKILL)
            run.process.waitUntilExit()
            return (nil, run.errors)
        }
        return (run.waitForExit(seconds: 5), run.errors)
    }

    @Test(
        "A FIFO where a token or key file belongs is refused at once, not opened and waited on (the view's token, the remembered phones' keys)"
    )
    func fifoInPlaceOfAKeyFile() throws {
        for (file, arguments) in [
            (
                "view.token",
                ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--print", "--view", "127.0.0.1:0"]
            ),
            ("phone.secrets", ["run", "--source", "phone:127.0.0.1:0", "--phone-remember", "--print"])
        ] {
            let home = Mouse3DProcess.makeConfigHome()
            try FileManager.default.createDirectory(
                atPath: home + "/mouse3d", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            #expect(mkfifo(home + "/mouse3d/" + file, 0o600) == 0)
            let (status, errors) = try Self.endsByItself(arguments, home: home)
            #expect(status != nil, "\(file) as a FIFO: mouse3d was stuck and had to be killed: \(errors)")
            #expect(
                status != 0 && errors.contains("not a regular file"),
                "\(file) as a FIFO: \(status.map(String.init) ?? "killed"): \(errors)")
        }
    }

    @Test("A folder above the keys that others can change (world-writable, not sticky) is refused with what to do")
    func unsafeParentFolder() throws {
        let parent = Mouse3DProcess.makeConfigHome()
        let home = parent + "/open"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        #expect(chmod(home, 0o777) == 0)
        let (status, errors) = try Self.endsByItself(
            ["run", "--source", "phone:127.0.0.1:0", "--phone-remember", "--print"], home: home)
        #expect(status != nil && status != 0, "\(errors)")
        #expect(errors.contains("\(home): a folder above mouse3d's keys that other users can change"), "\(errors)")
        #expect(chmod(home, 0o1777) == 0)  // sticky, as /tmp: others cannot move what is not theirs
        let sticky = try Mouse3DProcess(
            ["run", "--source", "phone:127.0.0.1:0", "--phone-remember", "--print"], configHome: home,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data"])
        #expect(
            sticky.waitForError(containing: "running phone on port", seconds: 20),
            "sticky is accepted: \(sticky.errors)")
        _ = sticky.terminate()
    }

    @Test("A bad phone address is refused with what to write")
    func badAddress() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let bad = try runMouse3D(["run", "--source", "phone:nonsense"], configHome: home)
        #expect(bad.status != 0 && bad.errors.contains("phone[:[ADDR:]PORT]"), "\(bad.errors)")
    }
}
