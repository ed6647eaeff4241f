import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

enum PermissionTests {
    /// With udev/70-mouse3d.rules installed, /dev/uinput belongs to group input (0660): a user in
    /// that group creates a virtual pointer without root; a user outside it is told which rule fixes it.
    static func uinputForGroupInput() throws {
        var info = stat()
        try expect(stat("/dev/uinput", &info) == 0, "stat /dev/uinput")
        try expect(info.st_gid == 101 && info.st_mode & 0o777 == 0o660, "/dev/uinput gid \(info.st_gid) mode \(String(info.st_mode & 0o777, radix: 8))")
        for (user, allowed) in [("player", true), ("stranger", false)] {
            let child = try ChildProcess(executable: "/bin/su", arguments: ["-s", "/bin/sh", user, "-c", "/mouse3d receive --insecure --listen 127.0.0.1:0 --uinput pointer"])
            let port = try loopbackPort(announcedBy: child, "\(user)'s receiver")
            let streamer = try AttitudeStreamer(peers: [try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)], format: .datagram)
            try streamer.send(AttitudeFrame(roll: 0, pitch: 0, yaw: 0), buttons: [.clutch], now: 0)
            if allowed {
                _ = try OutputTests.node(named: "mouse3d pointer")
                try child.send(signal: SIGTERM)
                let said = try child.readAllErrors()
                try expect(try child.wait() == 0, "\(user): \(said)")
            } else {
                let said = try child.readAllErrors()
                let status = try child.wait()
                try expect(status != 0 && said.contains("permission denied") && said.contains("udev/70-mouse3d.rules"),
                           "\(user) (not in group input): exit \(status), said: \(said)")
            }
        }
    }
}
