import Foundation
import Testing

@Suite("mouse3d doctor, as a user runs it")
struct DoctorCommandTests {
    @Test(
        "doctor --json: every check an object; with the pointer output configured and no /dev/uinput, it names /dev/uinput and exits 1"
    )
    func json() throws {
        let home = NSTemporaryDirectory() + "doctor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home + "/mouse3d", withIntermediateDirectories: true)
        try "[receive]\noutput = \"pointer\"\n".write(
            toFile: home + "/mouse3d/config.toml", atomically: true, encoding: .utf8)
        let r = try runMouse3D(["doctor", "--json", "--offline"], configHome: home)
        let checks = try #require(
            try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [[String: Any]], "\(r.output)")
        let names = checks.compactMap { $0["name"] as? String }
        for expected in ["build", "configuration", "uinput", "udev rule", "systemd units", "stream port", "spacenavd"] {
            #expect(names.contains(expected), "no \(expected) check: \(names)")
        }
        let uinput = try #require(checks.first { $0["name"] as? String == "uinput" })
        if FileManager.default.fileExists(atPath: "/dev/uinput") {
            print("doctor: /dev/uinput exists on this host; the VM suite checks the missing case's exit status")
            #expect(uinput["status"] as? String != nil)
        } else {
            #expect(
                uinput["status"] as? String == "problem"
                    && (uinput["detail"] as? String ?? "").contains("/dev/uinput does not exist"), "\(uinput)")
            #expect(uinput["blocking"] as? Bool == true)
            #expect(r.status == 1, "a blocking problem: exit 1")
        }
        // The same machine with printing configured: nothing blocks the job, exit 0.
        try "[receive]\noutput = \"print\"\n".write(
            toFile: home + "/mouse3d/config.toml", atomically: true, encoding: .utf8)
        let printing = try runMouse3D(["doctor", "--offline"], configHome: home)
        #expect(printing.status == 0, "\(printing.output)")
        #expect(
            printing.output.contains("uinput: ")
                && printing.output.split(separator: "\n").allSatisfy {
                    $0.hasPrefix("✓") || $0.hasPrefix("✗") || $0.hasPrefix("–") || $0.hasPrefix("    fix: ")
                },
            "\(printing.output)")
    }
}

@Suite("Messages read as sentences")
struct MessageTests {
    @Test(
        "send's start-up line names where it sends without a dangling 'at' (it said 'sending raw frames to at 127.0.0.1:9')"
    )
    func sendingLine() throws {
        let send = try Mouse3DProcess([
            "send", "--raw", "--to", "127.0.0.1:9", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--loop"
        ])
        defer { _ = send.terminate() }
        #expect(send.waitForError(containing: "sending raw frames to 127.0.0.1:9 from replay:"), "\(send.errors)")
        #expect(!send.errors.contains("to at "), "\(send.errors)")
    }
}
