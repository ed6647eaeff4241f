import Foundation
import Glibc
import Testing
import Mouse3DLinux

/// A plain TCP client for the view's HTTP and WebSocket, so the test sees the bytes a browser would.
struct TCPExchange {
    /// Sends `request` to 127.0.0.1:`port` and returns what comes back within `seconds`.
    /// A TCP socket connected to 127.0.0.1:`port` that has sent `request` (with a small receive
    /// buffer if `receiveBuffer` is given, so a reader that never reads stalls the sender soon).
    static func connected(port: Int, request: String, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if ok != 0 { close(fd) }
        try #require(ok == 0, "cannot connect to the view on port \(port)")
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    static func run(port: Int, request: String, seconds: Double) throws -> [UInt8] {
        let fd = try connected(port: port, request: request)
        defer { close(fd) }
        var received: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < end {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// The text messages of a WebSocket response (server frames are not masked).
    static func webSocketTexts(_ bytes: [UInt8]) -> (status: String, texts: [String], head: String) {
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 })
        else { return (String(decoding: bytes.prefix(200), as: UTF8.self), [], "") }
        let status = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
        var texts: [String] = []
        var i = end + 4
        while i + 2 <= bytes.count {
            let opcode = bytes[i] & 0x0F
            var length = Int(bytes[i + 1] & 0x7F)
            var start = i + 2
            if length == 126 {
                guard start + 2 <= bytes.count else { break }
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1]); start += 2
            } else if length == 127 {
                guard start + 8 <= bytes.count else { break }
                length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }; start += 8
            }
            guard start + length <= bytes.count else { break }
            if opcode == 1 { texts.append(String(decoding: bytes[start..<start + length], as: UTF8.self)) }
            i = start + length
        }
        return (status, texts, String(decoding: bytes[..<end], as: UTF8.self))
    }
}

@Suite("The live view: page, stream and refusals, against a running mouse3d")
struct ViewTests {
    static func upgrade(port: Int, host: String, origin: String?) -> String {
        "GET /stream HTTP/1.1\r\nHost: \(host)\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n"
    }

    /// `run` replaying the sample in a loop, printing jsonl, with the view on a free loopback port.
    static func runWithView(_ extra: [String]) throws -> (Mouse3DProcess, Int) {
        let home = Mouse3DProcess.makeConfigHome()
        let run = try Mouse3DProcess(
            ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--loop"] + extra + ["--print", "--format", "jsonl", "--view", "0"],
            configHome: home, environment: ["HOME": home])
        #expect(run.waitForError(containing: "view at http://127.0.0.1:", seconds: 20), "\(run.errors)")
        let port = run.errors.split(separator: "\n").first { $0.contains("view at") }
            .flatMap { Int($0.split(separator: "127.0.0.1:")[1].prefix { $0.isNumber }) }
        if port == nil { _ = run.terminate() }
        return (run, try #require(port, "\(run.errors)"))
    }

    @Test("The page is served whole from the binary; the stream carries what --print shows; foreign Host and Origin are refused and counted")
    func view() throws {
        let (run, port) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let host = "127.0.0.1:\(port)"

        let page = String(decoding: try TCPExchange.run(
            port: port, request: "GET / HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", seconds: 1), as: UTF8.self)
        #expect(page.hasPrefix("HTTP/1.1 200"), "\(page.prefix(200))")
        #expect(page.contains("window.mouse3dView") && page.contains("Content-Security-Policy"))
        let external = ["http://", "https://", "//cdn", "src=\""].filter { page.contains($0) }
        #expect(external.isEmpty, "the page names another host: \(external)")

        let rebound = String(decoding: try TCPExchange.run(
            port: port, request: "GET / HTTP/1.1\r\nHost: attacker.example:\(port)\r\nConnection: close\r\n\r\n", seconds: 1), as: UTF8.self)
        #expect(rebound.hasPrefix("HTTP/1.1 421"), "DNS rebinding: \(rebound.prefix(120))")
        let foreign = TCPExchange.webSocketTexts(try TCPExchange.run(
            port: port, request: Self.upgrade(port: port, host: host, origin: "http://attacker.example"), seconds: 1))
        #expect(foreign.status.hasPrefix("HTTP/1.1 403") && foreign.texts.isEmpty, "foreign origin: \(foreign.status)")

        let printedBefore = run.output.split(separator: "\n").count
        let live = TCPExchange.webSocketTexts(try TCPExchange.run(
            port: port, request: Self.upgrade(port: port, host: host, origin: "http://\(host)"), seconds: 2))
        #expect(live.status.hasPrefix("HTTP/1.1 101"), "\(live.status)")
        #expect(live.head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "RFC 6455's example key: \(live.head)")
        print("view: \(live.texts.count) messages in 2 s over the WebSocket")
        #expect(live.texts.count >= 80, "\(live.texts.count) messages in 2 s: the page would not see 40 updates a second")
        #expect(live.texts.last?.contains("\"foreign-host\":1,\"foreign-origin\":1") == true, "\(live.texts.last ?? "")")
        #expect(run.output.split(separator: "\n").count > printedBefore + 100, "the printed stream went on while the view was watched")

        // The view's attitude is what --print printed for the same sequence number, to 0.01°.
        var printed: [Int: (Double, Double, Double)] = [:]
        for l in run.output.split(separator: "\n") {
            func number(_ key: String) -> Double? {
                guard let r = l.range(of: "\"\(key)\":") else { return nil }
                return Double(l[r.upperBound...].prefix { $0 != "," && $0 != "}" })
            }
            if let s = number("seq"), let r = number("roll"), let p = number("pitch"), let y = number("yaw") {
                printed[Int(s)] = (r * 180 / .pi, p * 180 / .pi, y * 180 / .pi)
            }
        }
        var compared = 0
        for text in live.texts {
            func number(_ key: String) -> Double? {
                guard let r = text.range(of: "\"\(key)\":") else { return nil }
                return Double(text[r.upperBound...].prefix { $0 != "," && $0 != "}" })
            }
            guard let s = number("seq"), let r = number("roll"), let p = number("pitch"), let y = number("yaw"),
                  let expected = printed[Int(s)] else { continue }
            // A looped log repeats sequence numbers' attitudes only by coincidence: seq keeps growing.
            #expect(abs(r - expected.0) < 0.01 && abs(p - expected.1) < 0.01 && abs(y - expected.2) < 0.01, "seq \(s): view \(r), \(p), \(y); print \(expected)")
            compared += 1
        }
        #expect(compared >= 50, "only \(compared) view messages matched a printed frame")
    }

    @Test("Stalled browsers (20 sockets that upgrade and never read) hold memory bounded and cost the stream nothing")
    func stalledBrowsers() throws {
        let (run, port) = try Self.runWithView(["--speed", "4"])
        defer { _ = run.terminate() }
        func rssKiB() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(run.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let l = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(l.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        Thread.sleep(forTimeInterval: 1)
        let before = rssKiB()
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for _ in 0..<20 {
            sockets.append(try TCPExchange.connected(
                port: port, request: Self.upgrade(port: port, host: "127.0.0.1:\(port)", origin: nil), receiveBuffer: 4096))
        }
        let printedBefore = run.output.split(separator: "\n").count
        Thread.sleep(forTimeInterval: 8)
        let printed = run.output.split(separator: "\n").count - printedBefore
        let after = rssKiB()
        print("view: 20 stalled sockets for 8 s: RSS \(before) KiB -> \(after) KiB; \(printed) frames printed meanwhile (400/s expected)")
        #expect(printed >= 8 * 400 * 9 / 10, "the stream slowed: \(printed) frames in 8 s")
        #expect(after - before < 16 * 1024, "memory grew by \(after - before) KiB with stalled browsers")
    }

    @Test("--view takes [ADDR:]PORT and says what is wrong otherwise")
    func badAddress() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let bad = try runMouse3D(["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--view", "nonsense"], configHome: home, environment: ["HOME": home])
        #expect(bad.status != 0 && bad.errors.contains("is not [ADDR:]PORT"), "\(bad.errors)")
    }

    @Test("A port in use, or an address not on this machine, is named with what to do: --view, --dsu and receive --listen")
    func listenFailures() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let taken = try TCPListener(listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        let busyUDP = try UDPSocket(family: AF_INET)
        try busyUDP.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        let udpPort = try busyUDP.localAddress().port
        let log = "replay:\(Mouse3DProcess.sampleLog)"
        let cases: [([String], String)] = [
            (["run", "--source", log, "--view", "127.0.0.1:\(taken.localAddress.port)"], "--view: cannot serve the view on 127.0.0.1:\(taken.localAddress.port)"),
            (["run", "--source", log, "--dsu", "127.0.0.1:\(udpPort)"], "--dsu: cannot listen on 127.0.0.1:\(udpPort)"),
            (["receive", "--insecure", "--print", "--listen", "127.0.0.1:\(udpPort)"], "cannot listen on 127.0.0.1:\(udpPort)"),
        ]
        for (arguments, said) in cases {
            let r = try runMouse3D(arguments, configHome: home, environment: ["HOME": home])
            #expect(r.status != 0 && r.errors.contains(said) && r.errors.contains("another program (another mouse3d?) listens there; choose another port"),
                    "\(arguments): \(r.errors)")
        }
        // 192.0.2.1 (TEST-NET-1, never assigned to a machine): bind fails at once, nothing is sent.
        let elsewhere = try runMouse3D(["run", "--source", log, "--dsu", "192.0.2.1:26760"], configHome: home, environment: ["HOME": home])
        #expect(elsewhere.status != 0 && elsewhere.errors.contains("that address is not one of this machine's"), "\(elsewhere.errors)")
    }

    @Test("Recenter from the page: refused without the token, from another origin or with none; done with both; the stream goes on")
    func recenter() throws {
        let (run, port) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let host = "127.0.0.1:\(port)"
        func post(origin: String?, token: String?) throws -> String {
            let request = "POST /recenter HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
                + (token.map { "X-Mouse3D-Token: \($0)\r\n" } ?? "") + "\r\n"
            return String(decoding: try TCPExchange.run(port: port, request: request, seconds: 1).prefix(40), as: UTF8.self)
        }
        let page = String(decoding: try TCPExchange.run(
            port: port, request: "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", seconds: 1), as: UTF8.self)
        let token = try #require(page.split(separator: "name=\"mouse3d-recenter\" content=\"").dropFirst().first?.prefix { $0 != "\"" })
        #expect(token.count == 32, "the page carries the token: \(token)")
        let own = "http://\(host)"
        #expect(try post(origin: own, token: nil).hasPrefix("HTTP/1.1 403"))
        #expect(try post(origin: own, token: String(repeating: "0", count: 32)).hasPrefix("HTTP/1.1 403"))
        #expect(try post(origin: "http://attacker.example", token: String(token)).hasPrefix("HTTP/1.1 403"))
        #expect(try post(origin: nil, token: String(token)).hasPrefix("HTTP/1.1 403"))
        #expect(!run.errors.contains("recentred"), "a refused request recentred: \(run.errors)")
        let printedBefore = run.output.split(separator: "\n").count
        #expect(try post(origin: own, token: String(token)).hasPrefix("HTTP/1.1 204"))
        #expect(run.waitForError(containing: "recentred (the view's button)", seconds: 5), "\(run.errors)")
        let live = TCPExchange.webSocketTexts(try TCPExchange.run(port: port, request: Self.upgrade(port: port, host: host, origin: own), seconds: 0.5))
        #expect(live.texts.first == #"{"recenter_token":"\#(token)"}"#, "each connection starts with the token (a restarted process has a new one): \(live.texts.first ?? "")")
        #expect(live.texts.last?.contains(#""foreign-origin":2,"bad-token":2"#) == true, "refusals counted: \(live.texts.last ?? "")")
        Thread.sleep(forTimeInterval: 1.5)
        #expect(run.output.split(separator: "\n").count > printedBefore + 100, "the stream went on (100 frames/s)")
    }

    @Test("An attacker's connections: silent, half-sent, endless and flooding ones are closed and counted; the page still loads; the stream goes on")
    func hostileConnections() throws {
        let (run, port) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let host = "127.0.0.1:\(port)"
        var hostile: [Int32] = []
        defer { for fd in hostile { close(fd) } }
        // 40 connections that never finish their head (more than the 32 served at once)...
        for i in 0..<40 { hostile.append(try TCPExchange.connected(port: port, request: i % 2 == 0 ? "" : "GET / HTTP/1.1\r\nHost: \(host)\r\n")) }
        // ...and one whose head never ends.
        let endless = try TCPExchange.connected(port: port, request: "GET / HTTP/1.1\r\n")
        hostile.append(endless)
        let line = Array(("X-Padding: " + String(repeating: "a", count: 1000) + "\r\n").utf8)
        var flooded = 0
        for _ in 0..<64 { flooded += line.withUnsafeBytes { max(0, send(endless, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))) } }
        let printedBefore = run.output.split(separator: "\n").count, started = Date()
        // The page still loads while they hold on (the oldest half-sent connections make room).
        let page = String(decoding: try TCPExchange.run(port: port, request: "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", seconds: 1), as: UTF8.self)
        #expect(page.hasPrefix("HTTP/1.1 200"), "the page did not load under attack: \(page.prefix(80))")
        // After the head time-out (5 s) every hostile connection has been closed by the view.
        Thread.sleep(forTimeInterval: 6)
        var closedByView = 0
        for fd in hostile {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n > 0 { continue }  // a response (400) before the close
                if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { closedByView += 1 }
                break
            }
        }
        let printed = run.output.split(separator: "\n").count - printedBefore, elapsed = Date().timeIntervalSince(started)
        print("view under attack: \(closedByView)/\(hostile.count) hostile connections closed by the view; \(flooded) bytes of endless head sent; "
            + "\(printed) frames printed in \(String(format: "%.1f", elapsed)) s (100/s expected)")
        #expect(closedByView == hostile.count, "\(hostile.count - closedByView) hostile connections still held")
        #expect(Double(printed) >= elapsed * 100 * 0.9, "the stream slowed: \(printed) frames in \(elapsed) s")
        let live = TCPExchange.webSocketTexts(try TCPExchange.run(port: port, request: Self.upgrade(port: port, host: host, origin: nil), seconds: 0.5))
        let last = live.texts.last ?? ""
        #expect(last.contains("\"too-many-connections\":") && !last.contains("\"too-many-connections\":0"), "\(last)")
        #expect(last.contains("\"too-slow\":") && !last.contains("\"too-slow\":0"), "\(last)")
        #expect(last.contains("\"malformed\":1"), "the endless head counted as malformed: \(last)")
        _ = run.terminate()
        #expect(run.errors.contains("view: refused "), "the summary names the refusals: \(run.errors)")
    }
}
