import Glibc
import Mouse3DCore
import Mouse3DLinux
import Testing

/// A delegate that lets everyone in, upgrades `/stream` unauthenticated, and takes a text frame
/// "token" as the token.
final class OpenDoorDelegate: WebConnectionsDelegate {
    var refusals: [WebConnections.Refusal] = []
    weak var server: WebConnections?

    func admit(peer: String, network: String, server: WebConnections, turn: UInt64, now: UInt64) -> Bool { true }

    func route(_ head: HTTPRequestHead, on c: WebConnections.Connection) throws {
        guard let switching = WebSocketFrame.handshakeResponse(to: head) else {
            return server!.respond(c, .upgradeExpected)
        }
        server!.upgrade(c, switching: switching, authenticated: false)
    }

    func frame(_ h: WebSocketFrame.Header, on c: WebConnections.Connection) throws -> Bool {
        guard h.opcode == .text, !c.authenticated else { return false }
        if server!.payload(h, of: c) == Array("token".utf8) { server!.authenticate(c) }
        return true
    }

    func refused(_ reason: WebConnections.Refusal) { refusals.append(reason) }
}

/// A blocking client connection to 127.0.0.1:`port`.
func connectLoopback(_ port: UInt16) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    #expect(connected == 0)
    return fd
}

func send(_ fd: Int32, _ bytes: [UInt8]) {
    #expect(bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) } == bytes.count)
}

/// A masked client frame.
func clientFrame(_ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let mask: [UInt8] = [1, 2, 3, 4]
    return [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask
        + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
}

@Suite("The web connection engine under the view and the phone page")
struct WebConnectionsTests {
    /// A server on a loopback port with `limits`, served by an ``OpenDoorDelegate``, on a new loop.
    func serve(_ limits: WebConnections.Limits) throws -> (EventLoop, WebConnections, OpenDoorDelegate) {
        let loop = try EventLoop(signals: [])
        let server = WebConnections(
            listener: try TCPListener.listening(host: "127.0.0.1", port: 0), limits: limits, recordsArrival: false)
        let delegate = OpenDoorDelegate()
        delegate.server = server
        server.delegate = delegate
        server.attach(to: loop)
        return (loop, server, delegate)
    }

    @Test("The table's bound holds even when the delegate lets every newcomer in")
    func tableBound() throws {
        let (loop, server, delegate) = try serve(
            WebConnections.Limits(maximumConnections: 4, headTimeoutNanoseconds: 5_000_000_000))
        let clients = (0..<10).map { _ in connectLoopback(server.localAddress.port) }
        defer { for fd in clients { close(fd) } }
        try withExtendedLifetime(delegate) { _ = try loop.run(until: MonotonicClock.nanoseconds() + 200_000_000) }
        #expect(server.connections.count == 4, "\(server.connections.count) held")
        server.stop()
    }

    @Test(
        "A socket that authenticates has the stall deadline from then, not the token's; one that does not is closed and counted"
    )
    func authenticationMovesTheDeadline() throws {
        var limits = WebConnections.Limits(maximumConnections: 8, headTimeoutNanoseconds: 300_000_000)
        limits.stallNanoseconds = 60_000_000_000
        let (loop, server, delegate) = try serve(limits)
        let upgrade = Array(
            ("GET /stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").utf8)
        let shows = connectLoopback(server.localAddress.port)
        let silent = connectLoopback(server.localAddress.port)
        defer {
            close(shows)
            close(silent)
        }
        send(shows, upgrade + clientFrame(0x1, Array("token".utf8)))
        send(silent, upgrade)
        // Until both have upgraded and one has authenticated (well within the silent one's 0.3 s).
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            server.sockets == 2 && server.connections.values.contains(where: \.authenticated)
        }
        let now = MonotonicClock.nanoseconds()
        let authenticated = server.connections.values.filter(\.authenticated)
        #expect(authenticated.count == 1 && server.connections.count == 2)
        #expect(server.sockets == 2, "both upgraded")
        #expect(
            authenticated.allSatisfy { $0.deadline > now + 50_000_000_000 },
            "the stall deadline (60 s), not the token's 0.3 s")
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { server.connections.count == 1 }
        #expect(server.connections.count == 1 && server.connections.values.allSatisfy(\.authenticated))
        #expect(server.sockets == 1, "the closed one no longer counted")
        #expect(delegate.refusals == [.unauthenticated], "\(delegate.refusals)")
        server.stop()
    }
}
