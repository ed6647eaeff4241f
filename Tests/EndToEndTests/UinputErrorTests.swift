import Foundation
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("Virtual-device errors on the host")
struct UinputErrorTests {
    @Test("Without /dev/uinput, receive --uinput says to load the module and exits 1")
    func missingUinput() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/uinput") else {
            // This host has uinput: the message cannot be provoked here. The VM suite covers real
            // uinput (and the permission message, as a user outside group input).
            print("skipped 'missingUinput': /dev/uinput exists on this host")
            return
        }
        let receiver = try Mouse3DProcess(["receive", "--insecure", "--listen", "127.0.0.1:0", "--uinput", "pointer"])
        let port = try receiver.listeningPort()
        let socket = try UDPSocket(family: AF_INET)
        let frame = AttitudeDatagram(streamID: 1, sequence: 0, sentNanoseconds: 0, buttons: [.clutch], frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0))
        _ = try frame.encoded.withUnsafeBytes { try socket.send($0, to: try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)) }
        #expect(receiver.waitForExit(seconds: 10) == 1)
        #expect(receiver.errors.contains("/dev/uinput does not exist") && receiver.errors.contains("modprobe uinput"), "said: \(receiver.errors)")
    }
}
