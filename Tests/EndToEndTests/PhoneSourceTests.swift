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
        #expect(run.waitForError(containing: "running phone at https://", seconds: 20), "\(run.errors)")
        let line = try #require(run.errors.split(separator: "\n").first { $0.contains("running phone at") })
        return String(try #require(line.split(separator: " ").first { $0.hasPrefix("https://") }))
    }

    @Test(
        "A fresh token each run; --phone-remember keeps one across runs (a bookmark works) until pair --revoke phone; the certificate is kept, its key 0600"
    )
    func rememberAndRevoke() throws {
        let home = Mouse3DProcess.makeConfigHome()
        func token(_ url: String) -> Substring { url.split(separator: "#").last ?? "" }
        let a = try Self.url(home: home)
        let b = try Self.url(home: home)
        #expect(token(a).count == 32 && token(a) != token(b), "fresh tokens: \(a) \(b)")
        let r1 = try Self.url(home: home, ["--phone-remember"])
        let r2 = try Self.url(home: home, ["--phone-remember"])
        #expect(token(r1) == token(r2), "remembered: \(r1) \(r2)")
        let revoked = try runMouse3D(["pair", "--revoke", "phone"], configHome: home)
        #expect(revoked.status == 0 && revoked.output.contains("forgot the remembered phone"), "\(revoked)")
        let r3 = try Self.url(home: home, ["--phone-remember"])
        #expect(token(r3) != token(r1), "a new token after the revocation")
        _ = try runMouse3D(["pair", "--revoke", "phone"], configHome: home)
        let again = try runMouse3D(["pair", "--revoke", "phone"], configHome: home)
        #expect(
            again.status != 0 && again.errors.contains("no phone is remembered"), "nothing left to forget: \(again)")
        let key = home + "/data/mouse3d/phone/key.pem"
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "key mode \(String(mode, radix: 8))")
    }

    @Test("A bad phone address is refused with what to write")
    func badAddress() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let bad = try runMouse3D(["run", "--source", "phone:nonsense"], configHome: home)
        #expect(bad.status != 0 && bad.errors.contains("phone[:[ADDR:]PORT]"), "\(bad.errors)")
    }
}
