import Foundation
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("Virtual-device errors on the host")
struct UinputErrorTests {
    @Test(
        "Without /dev/uinput, receive --uinput and run --uinput say to load the module and exit 1 before they listen or open anything",
        // The VM suite covers real uinput (and the permission message, as a user outside group input).
        .disabled(
            if: FileManager.default.fileExists(atPath: "/dev/uinput"),
            "this host has /dev/uinput: the message cannot be provoked here")
    )
    func missingUinput() throws {
        // Before: receive listened, announced itself, and died at the first frame (a service hours later).
        let receive = try runMouse3D(["receive", "--insecure", "--listen", "127.0.0.1:0", "--uinput", "pointer"])
        #expect(receive.status == 1)
        #expect(
            receive.errors.contains("/dev/uinput does not exist") && receive.errors.contains("modprobe uinput"),
            "said: \(receive.errors)")
        #expect(!receive.errors.contains("listening on"), "it listened first: \(receive.errors)")
        let run = try runMouse3D(["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--uinput", "joystick"])
        #expect(run.status == 1 && run.errors.contains("/dev/uinput does not exist"), "said: \(run.errors)")
        #expect(!run.errors.contains("running "), "it started first: \(run.errors)")
    }
}
