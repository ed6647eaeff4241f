import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

enum PermissionTests {
    /// With the group rule installed beside the seat rule (this VM has no systemd-logind to turn
    /// uaccess into an ACL), /dev/uinput belongs to group mouse3d (0660): a member creates a virtual
    /// pointer without root; a user outside it (in group input, which no longer grants it) is told
    /// which rule fixes it.
    static func uinputForGroupRule() throws {
        var info = stat()
        try expect(stat("/dev/uinput", &info) == 0, "stat /dev/uinput")
        try expect(
            info.st_gid == 101 && info.st_mode & 0o777 == 0o660,
            "/dev/uinput gid \(info.st_gid) mode \(String(info.st_mode & 0o777, radix: 8))")
        for (user, allowed) in [("player", true), ("stranger", false)] {
            let child = try ChildProcess(
                executable: "/bin/su",
                arguments: [
                    "-s", "/bin/sh", user, "-c", "/mouse3d receive --insecure --listen 127.0.0.1:0 --uinput pointer"
                ])
            if allowed {
                let port = try loopbackPort(announcedBy: child, "\(user)'s receiver")
                let streamer = try AttitudeStreamer(
                    peers: [try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)],
                    format: .datagram)
                try streamer.send(AttitudeFrame(roll: 0, pitch: 0, yaw: 0), buttons: [.clutch], now: 0)
                _ = try OutputTests.node(named: "mouse3d pointer")
                try child.send(signal: SIGTERM)
                let said = try child.readAllErrors()
                try expect(try child.wait() == 0, "\(user): \(said)")
            } else {
                // Refused before it listens: a service must not start, announce and fail at its first frame.
                let said = try child.readAllErrors()
                let status = try child.wait()
                try expect(
                    status != 0 && said.contains("permission denied") && said.contains("udev/70-mouse3d.rules"),
                    "\(user) (not in group mouse3d): exit \(status), said: \(said)")
                try expect(
                    !said.contains("listening on"),
                    "\(user)'s receiver listened before finding it cannot create devices: \(said)")
            }
            // doctor on the real /dev/uinput: writable for the one, denied (with the rule to install) for the other.
            let out = "/tmp/doctor-\(user).json"
            let doctor = try ChildProcess(
                executable: "/bin/su", arguments: ["-s", "/bin/sh", user, "-c", "/mouse3d doctor --json --offline"],
                standardOutputPath: out)
            let doctorSaid = try doctor.readAllErrors()
            if !doctorSaid.isEmpty { say("VMTEST-INFO doctor as \(user) said on stderr: \(doctorSaid)") }
            _ = try doctor.wait()
            let report = String(decoding: try FileContents.read(path: out), as: UTF8.self)
            let uinputLine =
                report.split(separator: "\n").first { $0.contains("\"name\":\"uinput\"") }.map(String.init) ?? ""
            if allowed {
                try expect(uinputLine.contains("\"status\":\"ok\""), "doctor as \(user): \(uinputLine)")
            } else {
                try expect(
                    uinputLine.contains("\"status\":\"note\"") || uinputLine.contains("\"status\":\"problem\""),
                    "doctor as \(user): \(uinputLine)")
                try expect(
                    uinputLine.contains("permission denied") && uinputLine.contains("70-mouse3d.rules"),
                    "doctor as \(user): \(uinputLine)")
            }
            say("VMTEST-INFO doctor as \(user): \(uinputLine)")
        }
    }
}
