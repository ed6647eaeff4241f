import Glibc
import Mouse3DCore
import Mouse3DLinux
import Testing

@testable import Mouse3DNetwork

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
            listeningOn: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), device: "log test",
            calibrated: false)
        let presses: [(code: Int32, first: UInt8, second: UInt8, home: UInt8)] = [
            (0x130, 0, 1 << 5, 0), (0x131, 0, 1 << 6, 0), (0x133, 0, 1 << 7, 0), (0x134, 0, 1 << 4, 0),  // A, B, Y, X
            // L1, R1, L2, R2
            (0x136, 0, 1 << 2, 0), (0x137, 0, 1 << 3, 0), (0x138, 0, 1 << 0, 0), (0x139, 0, 1 << 1, 0),
            (0x222, 1 << 7, 0, 0), (0x221, 1 << 6, 0, 0), (0x223, 1 << 5, 0, 0), (0x220, 1 << 4, 0, 0),  // d-pad
            // options, R3, L3, share
            (0x13b, 1 << 3, 0, 0), (0x13e, 1 << 2, 0, 0), (0x13d, 1 << 1, 0, 0), (0x13a, 1 << 0, 0, 0),
            (0x13c, 0, 0, 1)  // home
        ]
        for p in presses {
            server.gamepadButton(code: p.code, pressed: true)
            #expect(
                server.buttons1 == p.first && server.buttons2 == p.second && server.home == p.home, "code \(p.code)")
            server.gamepadButton(code: p.code, pressed: false)
            #expect(server.buttons1 == 0 && server.buttons2 == 0 && server.home == 0)
        }
        server.gamepadButton(code: 0x110, pressed: true)  // BTN_LEFT: not a gamepad button DSU has
        #expect(server.buttons1 == 0 && server.buttons2 == 0 && server.home == 0)
        #expect(DSUServer.buttonCodes == Set(presses.map(\.code)))
    }

    @Test(
        "Sticks and the hat land in DSU's report: 0–255 with 128 at rest, y up positive, the hat on the d-pad bits and analog bytes"
    )
    func sticksAndHat() throws {
        let server = try DSUServer(
            listeningOn: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), device: "log test",
            calibrated: false)
        let client = try UDPSocket(family: AF_INET, blocking: true)
        try client.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        try server.serve(
            .padData(slot: 0, mac: nil), from: try client.localAddress(), now: MonotonicClock.nanoseconds())
        func report() throws -> [UInt8] {
            let sample = MotionSample(
                timestampNanoseconds: 1_000_000, angularVelocityRadiansPerSecond: .zero,
                specificForceMetersPerSecondSquared: [0, 0, 9.8])
            server.sampleFused(sample, gyroBias: .zero, nowNanoseconds: MonotonicClock.nanoseconds())
            var buffer = [UInt8](repeating: 0, count: 200)
            let n = try buffer.withUnsafeMutableBytes { try client.receive(into: $0) }?.length ?? 0
            return Array(buffer[0..<n])
        }
        // Header 16 + type 4 + slot 11 + connected 1 + packet number 4: buttons at 36, sticks at 40.
        var r = try report()
        #expect(
            r.count == 100 && Array(r[36...43]) == [0, 0, 0, 0, 128, 128, 128, 128], "at rest: \(Array(r[36...43]))")
        // A DualSense's 0–255 sticks: full left and up on the left stick, full right and down on the right.
        let info = AbsoluteAxisInfo(value: 128, minimum: 0, maximum: 255, fuzz: 0, flat: 0, resolution: 0)
        for (code, raw) in [(Int32(0x00), 0), (0x01, 0), (0x03, 255), (0x04, 255)] {
            server.gamepadAxis(code: code, value: info.normalized(raw))
        }
        r = try report()
        #expect(
            Array(r[40...43]) == [0, 255, 255, 0],
            "left stick left and up, right stick right and down: \(Array(r[40...43]))")
        server.gamepadAxis(code: 0x01, value: info.normalized(128))
        #expect(try report()[41] == 127, "evdev's 128 of 0–255, turned upward positive: 255 - 128")
        // The hat (-1, 0, 1) sets the d-pad bits: left 7, down 6, right 5, up 4; their analog bytes follow.
        let hat = AbsoluteAxisInfo(value: 0, minimum: -1, maximum: 1, fuzz: 0, flat: 0, resolution: 0)
        for (x, y, bits) in [(-1, 0, UInt8(0x80)), (1, 0, 0x20), (0, -1, 0x10), (0, 1, 0x40), (-1, -1, 0x90), (0, 0, 0)]
        {
            server.gamepadAxis(code: 0x10, value: hat.normalized(x))
            server.gamepadAxis(code: 0x11, value: hat.normalized(y))
            r = try report()
            #expect(r[36] == bits, "hat \(x),\(y): \(String(r[36], radix: 2))")
            #expect(
                Array(r[44...47]) == [7, 6, 5, 4].map { bits & (1 << $0) != 0 ? 255 : 0 }, "analog d-pad for \(x),\(y)")
        }
        server.gamepadAxis(code: 0x02, value: 1)  // ABS_Z (a trigger): not reported
        #expect(Array(try report()[36...43]) == [0, 0, 0, 0, 0, 127, 255, 0], "unchanged")
    }
}

@Suite("DSU server under a flood")
struct DSUFloodTests {
    @Test("One wake-up reads at most its budget of requests: a flood cannot hold the event loop")
    func readBudget() throws {
        let server = try DSUServer(
            listeningOn: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), device: "log test",
            calibrated: false)
        try server.socket.setReceiveBufferSize(1 << 20)  // room for more than one wake-up's budget
        let flooder = try UDPSocket(family: AF_INET, blocking: true)
        try flooder.setSendBufferSize(1 << 20)
        let junk = Array("DSUC".utf8) + [UInt8](repeating: 0, count: 24)
        for _ in 0..<1000 { _ = try junk.withUnsafeBytes { try flooder.send($0, to: server.localAddress) } }
        let read = try server.drain(now: MonotonicClock.nanoseconds())
        #expect(read == DSUServer.readBudget, "\(read) requests read in one wake-up")
        #expect(try server.drain(now: MonotonicClock.nanoseconds()) > 0, "the rest waits for the next turn")
    }
}

@Suite("opentrack output's socket")
struct OpentrackSocketTests {
    @Test("Connected to opentrack: 5000 datagrams from another program to its port are not queued; poses still arrive")
    func nothingPilesUp() throws {
        let opentrack = try UDPSocket(family: AF_INET, blocking: true)
        try opentrack.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        try opentrack.setReceiveTimeout(nanoseconds: 1_000_000_000)
        let output = try OpentrackOutput(to: try opentrack.localAddress())
        let port = try #require(output.localAddress?.port)
        let flooder = try UDPSocket(family: AF_INET, blocking: true)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let junk = [UInt8](repeating: 0xAB, count: 40)
        for _ in 0..<5000 { _ = try junk.withUnsafeBytes { try flooder.send($0, to: target) } }
        #expect(output.pendingBytes == 0, "bytes queued on the output's socket: \(output.pendingBytes ?? -1)")
        try output.write(
            AttitudeUpdate(
                stream: .local, sequence: 1, buttons: [], frame: AttitudeFrame(roll: 0.1, pitch: 0, yaw: 0),
                sentNanoseconds: nil, receivedNanoseconds: 1))
        var buffer = [UInt8](repeating: 0, count: 64)
        let got = try buffer.withUnsafeMutableBytes { try opentrack.receive(into: $0) }
        #expect(got?.length == 48 && output.sent == 1, "a pose arrives: \(String(describing: got))")
    }
}
