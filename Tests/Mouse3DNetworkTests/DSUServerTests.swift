@testable import Mouse3DNetwork
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("DSU server's tables")
struct DSUServerTests {
    @Test("Every protocol refusal is counted under its own name")
    func refusalNames() {
        for r in DSUProtocol.Refusal.allCases {
            #expect(DSUServer.Refusal(rawValue: r.rawValue) != nil, "\(r.rawValue) has no counter")
            #expect(DSUServer.Refusal(r).rawValue == r.rawValue)
        }
    }

    @Test("Gamepad buttons land on DSU's bits: face buttons, shoulders, d-pad, options and share, home")
    func buttons() throws {
        let server = try DSUServer(
            listeningOn: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), device: "log test", calibrated: false)
        let presses: [(code: Int32, first: UInt8, second: UInt8, home: UInt8)] = [
            (0x130, 0, 1 << 5, 0), (0x131, 0, 1 << 6, 0), (0x133, 0, 1 << 7, 0), (0x134, 0, 1 << 4, 0),  // A, B, Y, X
            (0x136, 0, 1 << 2, 0), (0x137, 0, 1 << 3, 0), (0x138, 0, 1 << 0, 0), (0x139, 0, 1 << 1, 0),  // L1, R1, L2, R2
            (0x222, 1 << 7, 0, 0), (0x221, 1 << 6, 0, 0), (0x223, 1 << 5, 0, 0), (0x220, 1 << 4, 0, 0),  // d-pad
            (0x13b, 1 << 3, 0, 0), (0x13e, 1 << 2, 0, 0), (0x13d, 1 << 1, 0, 0), (0x13a, 1 << 0, 0, 0),  // options, R3, L3, share
            (0x13c, 0, 0, 1),  // home
        ]
        for p in presses {
            server.gamepadButton(code: p.code, pressed: true)
            #expect(server.buttons1 == p.first && server.buttons2 == p.second && server.home == p.home, "code \(p.code)")
            server.gamepadButton(code: p.code, pressed: false)
            #expect(server.buttons1 == 0 && server.buttons2 == 0 && server.home == 0)
        }
        server.gamepadButton(code: 0x110, pressed: true)  // BTN_LEFT: not a gamepad button DSU has
        #expect(server.buttons1 == 0 && server.buttons2 == 0 && server.home == 0)
        #expect(DSUServer.buttonCodes == Set(presses.map(\.code)))
    }
}
