import Foundation
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Testing

/// A plain TCP client for the view's HTTP and WebSocket, so the test sees the bytes a browser would.
struct TCPExchange {
    /// Sends `request` to 127.0.0.1:`port` and returns what comes back within `seconds`.
    /// A TCP socket connected to 127.0.0.1:`port` that has sent `request` (with a small receive
    /// buffer if `receiveBuffer` is given, so a reader that never reads stalls the sender soon).
    static func connected(port: Int, request: String, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if ok != 0 { close(fd) }
        try #require(ok == 0, "cannot connect to the view on port \(port)")
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    /// With `until`, returns as soon as what came back satisfies it.
    static func run(port: Int, request: String, seconds: Double, until done: ([UInt8]) -> Bool = { _ in false })
        throws -> [UInt8]
    {
        let fd = try connected(port: port, request: request)
        defer { close(fd) }
        return read(fd, seconds: seconds, until: done)
    }

    /// What `fd` receives within `seconds` (until `done` holds, or the peer closes).
    static func read(_ fd: Int32, seconds: Double, until done: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        var received: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < end && !done(received) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// Sends `text` on a connected `fd`.
    static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the peer has closed `fd` (what came before the close is read and dropped; a reset is
    /// a close too).
    static func peerClosed(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { continue }
            return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    /// Whether `bytes` hold a whole HTTP response: its head and as much body as Content-Length says
    /// (none for 204 and 304). For a server that keeps the connection open; one that closes ends the
    /// read by itself.
    static func hasCompleteResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<headEnd.lowerBound].lowercased()
        if head.hasPrefix("http/1.1 204") || head.hasPrefix("http/1.1 304") { return true }
        guard let field = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length
    }

    /// Whether what a WebSocket client read holds a text message yet: the view sends its counters in
    /// every one, so the first will do (a deadline only bounds a failure; a fixed window was a guess).
    static func hasText(_ bytes: [UInt8]) -> Bool { !webSocketTexts(bytes).texts.isEmpty }

    /// The text messages of a WebSocket response (server frames are not masked).

    static func webSocketTexts(_ bytes: [UInt8]) -> (status: String, texts: [String], head: String) {
        guard
            let end = bytes.indices.dropLast(3).first(where: {
                bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
            })
        else { return (String(decoding: bytes.prefix(200), as: UTF8.self), [], "") }
        let status =
            String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
        var texts: [String] = []
        var i = end + 4
        while i + 2 <= bytes.count {
            let opcode = bytes[i] & 0x0F
            var length = Int(bytes[i + 1] & 0x7F)
            var start = i + 2
            if length == 126 {
                guard start + 2 <= bytes.count else { break }
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                start += 2
            } else if length == 127 {
                guard start + 8 <= bytes.count else { break }
                length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }
                start += 8
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
    static func upgrade(port: Int, host: String, origin: String?, token: String?) -> String {
        "GET /stream\(token.map { "?token=\($0)" } ?? "") HTTP/1.1\r\nHost: \(host)\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n"
    }

    /// The port and token of the view URL a process printed (`view at http://ADDR:PORT/?token=T`).
    static func viewURL(_ errors: String) -> (port: Int, token: String)? {
        guard let line = errors.split(separator: "\n").first(where: { $0.contains("view at http://") }),
            let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let colon = url.dropFirst(7).lastIndex(of: ":"),
            let port = Int(url[url.index(after: colon)...].prefix { $0.isNumber }),
            let t = url.range(of: "?token=")
        else { return nil }
        return (port, String(url[t.upperBound...].prefix { $0.isHexDigit }))
    }

    /// `run` replaying the sample in a loop, printing jsonl, with the view on a free loopback port.
    static func runWithView(_ extra: [String], view: String = "0") throws -> (Mouse3DProcess, Int, String) {
        let home = Mouse3DProcess.makeConfigHome()
        let run = try Mouse3DProcess(
            ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--loop"] + extra + [
                "--print", "--format", "jsonl", "--view", view
            ],
            configHome: home, environment: ["HOME": home])
        #expect(run.waitForError(containing: "view at http://", seconds: 20), "\(run.errors)")
        let url = viewURL(run.errors)
        if url == nil { _ = run.terminate() }
        let (port, token) = try #require(url, "\(run.errors)")
        #expect(token.count == 32, "the URL carries a 128-bit token: \(run.errors)")
        return (run, port, token)
    }

    @Test(
        "The page is served whole from the binary; the stream carries what --print shows; foreign Host and Origin are refused and counted"
    )
    func view() throws { try UnderLoad.measure { try viewOnce() } }

    func viewOnce() throws {
        let (run, port, token) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let host = "127.0.0.1:\(port)"

        let page = String(
            decoding: try TCPExchange.run(
                port: port, request: "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n",
                seconds: 20), as: UTF8.self)
        #expect(page.hasPrefix("HTTP/1.1 200"), "\(page.prefix(200))")
        #expect(page.contains("window.mouse3dView") && page.contains("Content-Security-Policy"))
        let external = ["http://", "https://", "//cdn", "src=\""].filter { page.contains($0) }
        #expect(external.isEmpty, "the page names another host: \(external)")

        let rebound = String(
            decoding: try TCPExchange.run(
                port: port,
                request: "GET /?token=\(token) HTTP/1.1\r\nHost: attacker.example:\(port)\r\nConnection: close\r\n\r\n",
                seconds: 20), as: UTF8.self)
        #expect(rebound.hasPrefix("HTTP/1.1 421"), "DNS rebinding: \(rebound.prefix(120))")
        let foreign = TCPExchange.webSocketTexts(
            try TCPExchange.run(
                port: port,
                request: Self.upgrade(port: port, host: host, origin: "http://attacker.example", token: token),
                seconds: 20))
        #expect(foreign.status.hasPrefix("HTTP/1.1 403") && foreign.texts.isEmpty, "foreign origin: \(foreign.status)")
        // Without the token (as another local user would be: right Host and Origin, no token),
        // neither the page nor the stream.
        for target in ["/", "/?token=", "/?token=\(String(repeating: "0", count: 32))"] {
            let refused = String(
                decoding: try TCPExchange.run(
                    port: port, request: "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n",
                    seconds: 20), as: UTF8.self)
            #expect(
                refused.hasPrefix("HTTP/1.1 403") && !refused.contains("mouse3dView"),
                "\(target): \(refused.prefix(120))")
        }
        let tokenless = TCPExchange.webSocketTexts(
            try TCPExchange.run(
                port: port, request: Self.upgrade(port: port, host: host, origin: "http://\(host)", token: nil),
                seconds: 20))
        #expect(
            tokenless.status.hasPrefix("HTTP/1.1 403") && tokenless.texts.isEmpty,
            "no token, no stream: \(tokenless.status)")

        let printedBefore = run.output.split(separator: "\n").count
        // 80 messages, the rate over the time they took (a deadline only bounds a failure); a rate
        // short while other processes took the machine is measured again (UnderLoad).
        let load = MachineLoad(children: [run.process.processIdentifier])
        let opened = Date()
        let live = TCPExchange.webSocketTexts(
            try TCPExchange.run(
                port: port, request: Self.upgrade(port: port, host: host, origin: "http://\(host)", token: token),
                seconds: 20, until: { TCPExchange.webSocketTexts($0).texts.count >= 80 }))
        let took = Date().timeIntervalSince(opened)
        #expect(live.status.hasPrefix("HTTP/1.1 101"), "\(live.status)")
        #expect(
            live.head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
            "RFC 6455's example key: \(live.head)")
        let rate = Double(live.texts.count) / took
        print("view: \(live.texts.count) messages in \(took) s over the WebSocket")
        try UnderLoad.check(rate < 40, "\(live.texts.count) messages in \(took) s", load: load)
        #expect(rate >= 40, "\(live.texts.count) messages in \(took) s: the page would not see 40 updates a second")
        #expect(
            live.texts.last?.contains("\"foreign-host\":1,\"foreign-origin\":1,\"no-token\":3,\"bad-token\":1") == true,
            "\(live.texts.last ?? "")")
        #expect(
            run.waitForOutputLines(atLeast: printedBefore + 101) > printedBefore + 100,
            "the printed stream went on while the view was watched")

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
                let expected = printed[Int(s)]
            else { continue }
            // A looped log repeats sequence numbers' attitudes only by coincidence: seq keeps growing.
            #expect(
                abs(r - expected.0) < 0.01 && abs(p - expected.1) < 0.01 && abs(y - expected.2) < 0.01,
                "seq \(s): view \(r), \(p), \(y); print \(expected)")
            compared += 1
        }
        #expect(compared >= 50, "only \(compared) view messages matched a printed frame")
    }

    @Test("Stalled browsers (20 sockets that upgrade and never read) hold memory bounded and cost the stream nothing")
    func stalledBrowsers() throws { try CPUHeavy.run { try UnderLoad.measure { try stalledBrowsersAlone() } } }

    /// (Its frame rate is a figure of the machine's CPU: it takes the CPU-heavy lock.)
    func stalledBrowsersAlone() throws {
        let (run, port, token) = try Self.runWithView(["--speed", "4"])
        defer { _ = run.terminate() }
        let load = MachineLoad(children: [run.process.processIdentifier])
        func rssKiB() -> Int { run.residentKiB }
        #expect(run.waitForOutputLines(atLeast: 100) >= 100, "it runs: \(run.errors)")  // the baseline once warm
        let before = rssKiB()
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for _ in 0..<20 {
            sockets.append(
                try TCPExchange.connected(
                    port: port, request: Self.upgrade(port: port, host: "127.0.0.1:\(port)", origin: nil, token: token),
                    receiveBuffer: 4096))
        }
        let printedBefore = run.output.split(separator: "\n").count
        let began = MonotonicClock.nanoseconds()
        Thread.sleep(forTimeInterval: 8)  // the measuring window; the rate is over its measured length
        let printed = run.output.split(separator: "\n").count - printedBefore
        let seconds = Double(MonotonicClock.nanoseconds() - began) * 1e-9
        let rate = Double(printed) / seconds
        let after = rssKiB()
        print(
            "view: 20 stalled sockets for \(String(format: "%.2f", seconds)) s: RSS \(before) KiB -> \(after) KiB; \(printed) frames printed meanwhile, \(Int(rate))/s (400/s expected)"
        )
        try UnderLoad.check(rate < 360, "\(Int(rate)) frames/s printed", load: load)
        #expect(rate >= 360, "the stream slowed: \(printed) frames in \(seconds) s")
        #expect(after - before < 16 * 1024, "memory grew by \(after - before) KiB with stalled browsers")
    }

    @Test("After 70 sender restarts (each a new stream), the live stream is shown and the oldest are not")
    func restartsShowTheLiveStream() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let receiver = try Mouse3DProcess(
            ["receive", "--insecure", "--listen", "127.0.0.1:0", "--print", "--view", "0"],
            configHome: home, environment: ["HOME": home])
        defer { _ = receiver.terminate() }
        let port = try receiver.listeningPort()
        #expect(receiver.waitForError(containing: "view at http://"), "\(receiver.errors)")
        let (viewPort, token) = try #require(Self.viewURL(receiver.errors), "\(receiver.errors)")
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        func datagram(_ stream: UInt32, _ sequence: UInt64) -> [UInt8] {
            AttitudeDatagram(
                streamID: stream, sequence: sequence, sentNanoseconds: 0, buttons: [],
                frame: AttitudeFrame(roll: 0, pitch: 0, yaw: 0)
            ).encoded
        }
        // 70 senders, one after another: each a new process (a new port and stream id), a few frames, then gone.
        for restart in 0..<70 {
            let socket = try UDPSocket(family: AF_INET, blocking: true)
            for sequence in 0..<3 {
                _ = try datagram(UInt32(restart + 1), UInt64(sequence)).withUnsafeBytes {
                    try socket.send($0, to: target)
                }
            }
            usleep(2000)
        }
        // The live stream keeps sending (at 100 Hz) until the view has been read, so a busy machine's
        // slow connection never meets it gone quiet.
        let live = try UDPSocket(family: AF_INET, blocking: true)
        let liveDatagrams = (0..<1000).map { datagram(0x777, UInt64($0)) }
        let stopLive = Flag()
        nonisolated(unsafe) let liveSocket = live  // sent from by that thread alone
        Thread {
            for d in liveDatagrams where !stopLive.isSet {
                _ = try? d.withUnsafeBytes { try liveSocket.send($0, to: target) }
                usleep(10_000)
            }
        }.start()
        defer { stopLive.set() }
        Thread.sleep(forTimeInterval: 0.3)
        func lastText(_ bytes: [UInt8]) -> String { TCPExchange.webSocketTexts(bytes).texts.last ?? "" }
        let message = lastText(
            try TCPExchange.run(
                port: viewPort,
                request: Self.upgrade(port: viewPort, host: "127.0.0.1:\(viewPort)", origin: nil, token: token),
                seconds: 5, until: { lastText($0).contains("stream 777\"") }))
        let shown = message.components(separatedBy: "\"label\":").count - 1
        print(
            "view after 70 sender restarts: \(shown) streams shown; live stream shown: \(message.contains("stream 777"))"
        )
        #expect(message.contains("stream 777\""), "the live stream is shown: \(message.prefix(300))")
        #expect(shown <= 64 && !message.contains("stream 1\""), "the first restart's stream made room: \(shown) shown")
    }

    @Test("--view takes [ADDR:]PORT and says what is wrong otherwise")
    func badAddress() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let bad = try runMouse3D(
            ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--view", "nonsense"], configHome: home,
            environment: ["HOME": home])
        #expect(bad.status != 0 && bad.errors.contains("is not [ADDR:]PORT"), "\(bad.errors)")
    }

    @Test(
        "A malformed address fails while the command line is parsed (exit 64, an example): receive and pair --listen, --dsu, --opentrack",
        arguments: [
            ["receive", "--insecure", "--print", "--listen", "127.0.0.1:99999"],
            ["pair", "--listen", "[::1:24930"],
            ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--dsu", "127.0.0.1:dsu"],
            ["receive", "--insecure", "--listen", "127.0.0.1:0", "--opentrack", "[::1]x"]
        ])
    func malformedAddresses(arguments: [String]) throws {
        let home = Mouse3DProcess.makeConfigHome()
        let bad = try runMouse3D(arguments, configHome: home, environment: ["HOME": home])
        #expect(bad.status == 64, "\(arguments): exit \(bad.status)")
        #expect(bad.errors.contains("for example 127.0.0.1:24930"), "\(bad.errors)")
        #expect(!bad.errors.contains("listening") && bad.output.isEmpty, "nothing started: \(bad.output) \(bad.errors)")
    }

    @Test(
        "A port in use, or an address not on this machine, is named with what to do: --view, --dsu and receive --listen"
    )
    func listenFailures() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let taken = try TCPListener(listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        let busyUDP = try UDPSocket(family: AF_INET)
        try busyUDP.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        let udpPort = try busyUDP.localAddress().port
        let log = "replay:\(Mouse3DProcess.sampleLog)"
        let cases: [([String], String)] = [
            (
                ["run", "--source", log, "--view", "127.0.0.1:\(taken.localAddress.port)"],
                "--view: cannot serve the view on 127.0.0.1:\(taken.localAddress.port)"
            ),
            (["run", "--source", log, "--dsu", "127.0.0.1:\(udpPort)"], "--dsu: cannot listen on 127.0.0.1:\(udpPort)"),
            (
                ["receive", "--insecure", "--print", "--listen", "127.0.0.1:\(udpPort)"],
                "cannot listen on 127.0.0.1:\(udpPort)"
            )
        ]
        for (arguments, said) in cases {
            let r = try runMouse3D(arguments, configHome: home, environment: ["HOME": home])
            #expect(
                r.status != 0 && r.errors.contains(said)
                    && r.errors.contains("another program (another mouse3d?) listens there; choose another port"),
                "\(arguments): \(r.errors)")
        }
        // 192.0.2.1 (TEST-NET-1, never assigned to a machine): bind fails at once, nothing is sent.
        let elsewhere = try runMouse3D(
            ["run", "--source", log, "--dsu", "192.0.2.1:26760"], configHome: home, environment: ["HOME": home])
        #expect(
            elsewhere.status != 0 && elsewhere.errors.contains("that address is not one of this machine's"),
            "\(elsewhere.errors)")
    }

    @Test(
        "Recenter from the page: refused without the token, from another origin or with none; done with both; the stream goes on"
    )
    func recenter() throws {
        let (run, port, token) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let host = "127.0.0.1:\(port)"
        func post(origin: String?, token: String?) throws -> String {
            let request =
                "POST /recenter HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\n"
                + (origin.map { "Origin: \($0)\r\n" } ?? "")
                + (token.map { "X-Mouse3D-Token: \($0)\r\n" } ?? "") + "\r\n"
            return String(
                decoding: try TCPExchange.run(
                    port: port, request: request, seconds: 20, until: TCPExchange.hasCompleteResponse
                ).prefix(40), as: UTF8.self)
        }
        let page = String(
            decoding: try TCPExchange.run(
                port: port, request: "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n", seconds: 20,
                until: TCPExchange.hasCompleteResponse),
            as: UTF8.self)
        #expect(
            page.contains("name=\"mouse3d-token\" content=\"\(token)\"")
                && page.contains("name=\"mouse3d-recenter\" content=\"1\""),
            "the page carries the token and offers recenter")
        let own = "http://\(host)"
        #expect(try post(origin: own, token: nil).hasPrefix("HTTP/1.1 403"))
        #expect(try post(origin: own, token: String(repeating: "0", count: 32)).hasPrefix("HTTP/1.1 403"))
        #expect(try post(origin: "http://attacker.example", token: String(token)).hasPrefix("HTTP/1.1 403"))
        #expect(try post(origin: nil, token: String(token)).hasPrefix("HTTP/1.1 403"))
        #expect(!run.errors.contains("recentred"), "a refused request recentred: \(run.errors)")
        let printedBefore = run.output.split(separator: "\n").count
        #expect(try post(origin: own, token: String(token)).hasPrefix("HTTP/1.1 204"))
        #expect(run.waitForError(containing: "recentred (the view's button)", seconds: 5), "\(run.errors)")
        let live = TCPExchange.webSocketTexts(
            try TCPExchange.run(
                port: port, request: Self.upgrade(port: port, host: host, origin: own, token: token), seconds: 10,
                until: TCPExchange.hasText))
        #expect(
            live.texts.last?.contains(#""foreign-origin":2,"no-token":1,"bad-token":1"#) == true,
            "refusals counted: \(live.texts.last ?? "")")
        #expect(run.waitForOutputLines(atLeast: printedBefore + 101) > printedBefore + 100, "the stream went on")
    }

    @Test(
        "An attacker's connections: silent, half-sent, endless and flooding ones are closed and counted; the page still loads; the stream goes on"
    )
    func hostileConnections() throws { try CPUHeavy.run { try UnderLoad.measure { try hostileConnectionsAlone() } } }

    func hostileConnectionsAlone() throws {
        let (run, port, token) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let load = MachineLoad(children: [run.process.processIdentifier])
        let host = "127.0.0.1:\(port)"
        var hostile: [Int32] = []
        defer { for fd in hostile { close(fd) } }
        // 40 connections that never finish their head (more than the 32 served at once)...
        for i in 0..<40 {
            hostile.append(
                try TCPExchange.connected(port: port, request: i % 2 == 0 ? "" : "GET / HTTP/1.1\r\nHost: \(host)\r\n"))
        }
        // ...and one whose head never ends.
        let endless = try TCPExchange.connected(port: port, request: "GET / HTTP/1.1\r\n")
        hostile.append(endless)
        let line = Array(("X-Padding: " + String(repeating: "a", count: 1000) + "\r\n").utf8)
        var flooded = 0
        for _ in 0..<64 {
            flooded += line.withUnsafeBytes {
                max(0, send(endless, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)))
            }
        }
        let printedBefore = run.output.split(separator: "\n").count
        let started = Date()
        // The page still loads while they hold on (the oldest half-sent connections make room).
        let page = String(
            decoding: try TCPExchange.run(
                port: port, request: "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n", seconds: 20,
                until: TCPExchange.hasCompleteResponse),
            as: UTF8.self)
        #expect(page.hasPrefix("HTTP/1.1 200"), "the page did not load under attack: \(page.prefix(80))")
        // By the head time-out (5 s) every hostile connection has been closed by the view: looked at
        // until all are (15 s at most: a busy machine's view may close them late, never not at all).
        var closed = Set<Int32>()
        let giveUp = Date().addingTimeInterval(15)
        while closed.count < hostile.count && Date() < giveUp {
            for fd in hostile where !closed.contains(fd) {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if n > 0 { continue }  // a response (400) before the close
                    if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { closed.insert(fd) }
                    break
                }
            }
            if closed.count < hostile.count { Thread.sleep(forTimeInterval: 0.1) }
        }
        let closedByView = closed.count
        let printed = run.output.split(separator: "\n").count - printedBefore
        let elapsed = Date().timeIntervalSince(started)
        print(
            "view under attack: \(closedByView)/\(hostile.count) hostile connections closed by the view; \(flooded) bytes of endless head sent; "
                + "\(printed) frames printed in \(String(format: "%.1f", elapsed)) s (100/s expected)")
        try UnderLoad.check(Double(printed) < elapsed * 100 * 0.9, "\(printed) frames in \(elapsed) s", load: load)
        #expect(closedByView == hostile.count, "\(hostile.count - closedByView) hostile connections still held")
        #expect(Double(printed) >= elapsed * 100 * 0.9, "the stream slowed: \(printed) frames in \(elapsed) s")
        let live = TCPExchange.webSocketTexts(
            try TCPExchange.run(
                port: port, request: Self.upgrade(port: port, host: host, origin: nil, token: token), seconds: 10,
                until: TCPExchange.hasText))
        let last = live.texts.last ?? ""
        #expect(last.contains("\"too-many-connections\":") && !last.contains("\"too-many-connections\":0"), "\(last)")
        #expect(last.contains("\"too-slow\":") && !last.contains("\"too-slow\":0"), "\(last)")
        #expect(last.contains("\"malformed\":1"), "the endless head counted as malformed: \(last)")
        _ = run.terminate()
        #expect(run.errors.contains("view: refused "), "the summary names the refusals: \(run.errors)")
    }

    @Test(
        "A view full of pages: a browser's request on its way is not pushed out by another page coming, and connections without the token push out no page"
    )
    func fullOfPages() throws {
        let (run, port, token) = try Self.runWithView([])
        defer { _ = run.terminate() }
        let host = "127.0.0.1:\(port)"
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        func page() throws -> Int32 {
            let fd = try TCPExchange.connected(
                port: port, request: Self.upgrade(port: port, host: host, origin: nil, token: token))
            fds.append(fd)
            let reply = TCPExchange.webSocketTexts(TCPExchange.read(fd, seconds: 10, until: TCPExchange.hasText))
            #expect(reply.status.hasPrefix("HTTP/1.1 101"), "a page was not let in: \(reply.status)")
            return fd
        }
        // A full response to a request without the token (403): the view has accepted every
        // connection made before it by then (it accepts in order).
        func refusedProbe() throws {
            let reply = String(
                decoding: try TCPExchange.run(
                    port: port, request: "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", seconds: 10,
                    until: TCPExchange.hasCompleteResponse), as: UTF8.self)
            #expect(reply.hasPrefix("HTTP/1.1 403"), "\(reply.prefix(80))")
        }
        var pages: [Int32] = []
        for _ in 0..<32 { pages.append(try page()) }  // the pages a view serves at once
        // A browser has connected and its request is on its way; the view accepts the connection in
        // a turn of its own (it wakes at least 100 times a second); then another page comes (one
        // reconnecting, say), and a request without the token.
        let browser = try TCPExchange.connected(port: port, request: "")
        fds.append(browser)
        Thread.sleep(forTimeInterval: 0.2)
        pages.append(try page())
        try refusedProbe()
        TCPExchange.write(browser, "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        let response = String(
            decoding: TCPExchange.read(browser, seconds: 10, until: TCPExchange.hasCompleteResponse), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200"), "the browser's request was pushed out: \(response.prefix(80))")
        // The newest page made room by closing the oldest.
        #expect(TCPExchange.peerClosed(pages[0]), "the oldest page was kept past the bound")
        #expect(!pages[1...].contains(where: TCPExchange.peerClosed), "a page other than the oldest was closed")
        // Connections without the token, silent or half-sent, push out no page.
        for i in 0..<12 {
            fds.append(try TCPExchange.connected(port: port, request: i % 2 == 0 ? "" : "GET / HTTP/1.1\r\n"))
        }
        try refusedProbe()
        let closed = pages[1...].filter(TCPExchange.peerClosed).count
        #expect(closed == 0, "\(closed) pages closed by connections without the token")
    }
}

/// A local program attacking the view with the token, as a page or a script could: it upgrades to
/// the stream and sends masked frames flat out, connecting again whenever the view closes it.
final class PageAttacker: @unchecked Sendable {
    enum Mode: String {
        /// Empty masked frames (6 bytes each), never reading.
        case smallFrames = "6-byte frames"
        /// 4 KiB masked frames, never reading.
        case largeFrames = "4 KiB frames"
        /// Pings, reading whatever comes back.
        case pingsReading = "pings, reading"
        /// Pings with a 4 KiB receive buffer and no read at all.
        case pingsNeverReading = "pings, never reading"
        /// Pings, reading 256 bytes every 2 s (keeping a stall deadline moving).
        case pingsTrickle = "pings, a trickle read"
    }

    let port: Int, token: String, mode: Mode
    private let stopped = Flag()
    private let lock = NSLock()
    private var _bytes = 0, _connections = 0, _closedByView = 0
    private var thread: Thread?

    init(port: Int, token: String, mode: Mode) {
        self.port = port
        self.token = token
        self.mode = mode
    }

    var figures: (bytes: Int, connections: Int, closedByView: Int) {
        lock.withLock { (_bytes, _connections, _closedByView) }
    }

    func start() {
        let t = Thread { [self] in run() }
        thread = t
        t.start()
    }

    func stop() {
        stopped.set()
        let end = Date().addingTimeInterval(60)  // a bound on a stuck thread, which would hang the suite
        while thread?.isFinished == false && Date() < end { usleep(10_000) }
        #expect(thread?.isFinished != false, "the attacker's thread did not stop within 60 s")
    }

    static func maskedFrame(opcode: UInt8, payload: Int) -> [UInt8] {
        var f: [UInt8] = [0x80 | opcode]
        if payload < 126 {
            f.append(0x80 | UInt8(payload))
        } else {
            f += [0x80 | 126, UInt8(payload >> 8), UInt8(payload & 0xFF)]
        }
        f += [0x12, 0x34, 0x56, 0x78]
        f += (0..<payload).map { UInt8($0 & 0xFF) ^ [0x12, 0x34, 0x56, 0x78][$0 & 3] }
        return f
    }

    private func run() {
        let frame: [UInt8]
        switch mode {
        case .smallFrames: frame = Self.maskedFrame(opcode: 2, payload: 0)
        case .largeFrames: frame = Self.maskedFrame(opcode: 2, payload: 4096)
        default: frame = Self.maskedFrame(opcode: 9, payload: 125)
        }
        var burst: [UInt8] = []
        while burst.count < 65536 { burst += frame }
        var scratch = [UInt8](repeating: 0, count: 65536)
        while !stopped.isSet {
            let request = ViewTests.upgrade(port: port, host: "127.0.0.1:\(port)", origin: nil, token: token)
            guard
                let fd = try? TCPExchange.connected(
                    port: port, request: request, receiveBuffer: mode == .pingsReading ? nil : 4096)
            else {
                usleep(1000)
                continue
            }
            lock.withLock { _connections += 1 }
            var lastTrickle = Date()
            var open = true
            while open && !stopped.isSet {
                let n = burst.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if n > 0 {
                    lock.withLock { _bytes += n }
                } else if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK {
                    open = false
                    break
                }
                switch mode {
                case .pingsReading, .smallFrames, .largeFrames:
                    // Reading (for the flooders too) is how a closed connection is noticed at once.
                    if mode == .pingsReading || n <= 0 {
                        let r = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                        if r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { open = false }
                    }
                case .pingsTrickle:
                    if Date().timeIntervalSince(lastTrickle) >= 2 {
                        lastTrickle = Date()
                        let r = recv(fd, &scratch, 256, Int32(MSG_DONTWAIT))
                        if r == 0 { open = false }
                    }
                case .pingsNeverReading:
                    break
                }
                if n <= 0 {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 5)
                    if p.revents & Int16(POLLERR | POLLHUP) != 0 { open = false }
                }
            }
            if !open { lock.withLock { _closedByView += 1 } }
            close(fd)
        }
    }
}

@Suite("The view under a flooding page: the loop keeps serving the stream", .serialized)
struct ViewFloodTests {
    static func count(_ reason: String, in message: String) -> Int {
        guard let r = message.range(of: "\"\(reason)\":") else { return -1 }
        return Int(message[r.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    static func lastMessage(port: Int, token: String) throws -> String {
        TCPExchange.webSocketTexts(
            try TCPExchange.run(
                port: port,
                request: ViewTests.upgrade(port: port, host: "127.0.0.1:\(port)", origin: nil, token: token),
                seconds: 10, until: TCPExchange.hasText)
        ).texts.last ?? ""
    }

    @Test(
        "run --print keeps >= 90% of 100 frames/s while a page floods the view for 5 s (6-byte frames, 4 KiB frames, pings while reading)",
        arguments: [PageAttacker.Mode.smallFrames, .largeFrames, .pingsReading])
    func runUnderFlood(mode: PageAttacker.Mode) throws {
        try CPUHeavy.run { try UnderLoad.measure { try runUnderFloodAlone(mode: mode) } }
    }

    func runUnderFloodAlone(mode: PageAttacker.Mode) throws {
        do {
            let (run, port, token) = try ViewTests.runWithView([])
            defer { _ = run.terminate() }
            #expect(run.waitForOutputLines(atLeast: 1) >= 1, "it runs: \(run.errors)")
            let load = MachineLoad(children: [run.process.processIdentifier])
            let attacker = PageAttacker(port: port, token: token, mode: mode)
            let printedBefore = run.output.split(separator: "\n").count
            let started = Date()
            attacker.start()
            // A 5 s window for the rate (divided by the time it really took), and on until the view
            // has closed an attacker at least once (up to 30 s): the counts asserted below are then
            // what the view did, not what a busy machine got round to in 5 s.
            let windowEnd = started.addingTimeInterval(5)
            let giveUp = started.addingTimeInterval(30)
            while Date() < windowEnd || (attacker.figures.closedByView == 0 && Date() < giveUp) {
                Thread.sleep(forTimeInterval: 0.05)
            }
            attacker.stop()
            let elapsed = Date().timeIntervalSince(started)
            let printed = run.output.split(separator: "\n").count - printedBefore
            let f = attacker.figures
            let last = try Self.lastMessage(port: port, token: token)
            print(
                "view flood (\(mode.rawValue)): \(f.bytes / 1024) KiB taken by the kernel over \(f.connections) connections (\(f.closedByView) closed by the view); "
                    + "\(printed) frames printed in \(String(format: "%.1f", elapsed)) s (100/s expected); too-many-frames \(Self.count("too-many-frames", in: last))"
            )
            try UnderLoad.check(
                Double(printed) < elapsed * 100 * 0.9, "\(printed) frames printed in \(elapsed) s", load: load)
            #expect(Double(printed) >= elapsed * 100 * 0.9, "the stream slowed: \(printed) frames in \(elapsed) s")
            #expect(Self.count("too-many-frames", in: last) >= 1, "the flooding page was closed and counted: \(last)")
            #expect(f.closedByView >= 1, "the view closed the flooding connection")
        }
    }

    @Test(
        "A sealed receive at 1 kHz keeps >= 95% of its frames, with no 'lost' event, while pages flood its view for 10 s"
    )
    func sealedReceiveUnderFlood() throws {
        try CPUHeavy.run { try UnderLoad.measure { try sealedReceiveUnderFloodAlone() } }
    }

    func sealedReceiveUnderFloodAlone() throws {
        do {
            let p = LoopbackPairing()
            let log = NSTemporaryDirectory() + "mouse3d-view-flood-\(getpid()).csv"
            defer { try? FileManager.default.removeItem(atPath: log) }
            let made = try runMouse3D([
                "simulate", "--motion", "hand", "--seconds", "10", "--rate", "1000", "--output", log
            ])
            try #require(made.status == 0, "\(made.errors)")
            let receiver = try Mouse3DProcess(
                ["receive", "--listen", "127.0.0.1:0", "--print", "--view", "0"], configHome: p.receiverHome,
                environment: ["HOME": p.receiverHome])
            defer { _ = receiver.terminate() }
            let port = try receiver.listeningPort()
            #expect(receiver.waitForError(containing: "view at http://"), "\(receiver.errors)")
            let (viewPort, token) = try #require(ViewTests.viewURL(receiver.errors), "\(receiver.errors)")
            try p.pair(streamPort: port)
            #expect(receiver.waitForError(containing: "added"))
            let attackers = [
                PageAttacker(port: viewPort, token: token, mode: .smallFrames),
                PageAttacker(port: viewPort, token: token, mode: .pingsReading)
            ]
            let load = MachineLoad(children: [receiver.process.processIdentifier])
            for a in attackers { a.start() }
            // The stream starts once every page floods (connected, bytes sent), not after a guess.
            let flooding = MonotonicClock.nanoseconds() + 20_000_000_000
            while attackers.contains(where: { $0.figures.connections < 1 || $0.figures.bytes == 0 }),
                MonotonicClock.nanoseconds() < flooding
            {
                usleep(10_000)
            }
            try #require(
                attackers.allSatisfy { $0.figures.connections >= 1 && $0.figures.bytes > 0 },
                "the pages were not flooding in 20 s: \(attackers.map(\.figures))")
            let sender = try runMouse3D(["send", "--source", "replay:\(log)", "--speed", "1"], configHome: p.senderHome)
            for a in attackers { a.stop() }
            #expect(sender.status == 0, "\(sender.errors)")
            let last = try Self.lastMessage(port: viewPort, token: token)
            #expect(receiver.terminate() == 0)
            let summary = try ReceiverSummary(receiver.errors)
            let sentFrames = 10001
            let figures = attackers.map(\.figures)
            print(
                "view flood beside a sealed 1 kHz receive: \(figures.map { "\($0.bytes / 1024) KiB over \($0.connections) connections" }); "
                    + "receiver: frames \(summary.frames) of ~\(sentFrames), lost \(summary.lost); too-many-frames \(Self.count("too-many-frames", in: last))"
            )
            try UnderLoad.check(
                Double(summary.frames) < Double(sentFrames) * 0.95, "the receiver kept \(summary.frames) frames",
                load: load)
            #expect(Double(summary.frames) >= Double(sentFrames) * 0.95, "frames \(summary.frames) of ~\(sentFrames)")
            #expect(
                !receiver.errors.contains("lost (no frames for 500 ms)"),
                "no spurious lost event: \(receiver.errors.suffix(600))")
            #expect(Self.count("too-many-frames", in: last) >= 2, "the flooding pages were closed and counted: \(last)")
        }
    }

    @Test(
        "Pings flat out for 30 s from a page that never reads, and from one that reads a trickle: RSS grows < 16 MB; closed and counted",
        arguments: [PageAttacker.Mode.pingsNeverReading, .pingsTrickle])
    func pingBacklog(mode: PageAttacker.Mode) throws {
        try CPUHeavy.run { try UnderLoad.measure { try pingBacklogAlone(mode: mode) } }
    }

    func pingBacklogAlone(mode: PageAttacker.Mode) throws {
        let (run, port, token) = try ViewTests.runWithView([])
        defer { _ = run.terminate() }
        let load = MachineLoad(children: [run.process.processIdentifier])
        func rssKiB() -> Int { run.residentKiB }
        #expect(run.waitForOutputLines(atLeast: 100) >= 100, "it runs: \(run.errors)")  // the baseline once warm
        let before = rssKiB()
        let printedBefore = run.output.split(separator: "\n").count
        let started = Date()
        let attacker = PageAttacker(port: port, token: token, mode: mode)
        attacker.start()
        var peak = before
        // RSS sampled every second for 30 s, and on until the view has closed the page at least once
        // (up to 60 s): the count asserted below is then what the view did, not what a busy machine
        // got round to in 30 s.
        let giveUp = started.addingTimeInterval(60)
        var seconds = 0
        while seconds < 30 || (attacker.figures.closedByView == 0 && Date() < giveUp) {
            Thread.sleep(forTimeInterval: 1)
            peak = max(peak, rssKiB())
            seconds += 1
        }
        attacker.stop()
        let elapsed = Date().timeIntervalSince(started)
        let printed = run.output.split(separator: "\n").count - printedBefore
        let last = try Self.lastMessage(port: port, token: token)
        let f = attacker.figures
        print(
            "view ping flood (\(mode.rawValue)) for \(seconds) s: RSS \(before) KiB -> peak \(peak) KiB; \(f.bytes / 1024) KiB of pings over \(f.connections) connections; "
                + "too-many-frames \(Self.count("too-many-frames", in: last)), unread \(Self.count("unread", in: last)); \(printed) frames printed in \(Int(elapsed)) s"
        )
        try UnderLoad.check(Double(printed) < elapsed * 100 * 0.9, "\(printed) frames in \(elapsed) s", load: load)
        #expect(peak - before < 16 * 1024, "memory grew by \(peak - before) KiB")
        #expect(
            Self.count("too-many-frames", in: last) + Self.count("unread", in: last) >= 1, "closed and counted: \(last)"
        )
        #expect(Double(printed) >= elapsed * 100 * 0.9, "the stream slowed: \(printed) frames in \(elapsed) s")
    }
}
