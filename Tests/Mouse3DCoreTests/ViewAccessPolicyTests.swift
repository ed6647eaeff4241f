import Mouse3DCore
import Testing

@Suite("Who may use the live view")
struct WebAccessPolicyTests {
    static let token = WebAccessPolicy.makeToken()
    static let t = Substring(token)

    @Test("Loopback: its own Host names only; the stream only from its own page or no browser at all")
    func loopback() {
        let p = WebAccessPolicy(address: "127.0.0.1", port: 8099, token: Self.token)
        let t = Self.t
        #expect(p.check(host: "127.0.0.1:8099", origin: nil, token: t, stream: false) == nil)
        #expect(p.check(host: "localhost:8099", origin: nil, token: t, stream: false) == nil)
        #expect(p.check(host: "LOCALHOST:8099", origin: "http://localhost:8099", token: t, stream: true) == nil)
        #expect(p.check(host: "[::1]:8099", origin: nil, token: t, stream: true) == nil)
        #expect(p.check(host: nil, origin: nil, token: t, stream: false) == .foreignHost)
        #expect(
            p.check(host: "attacker.example:8099", origin: nil, token: t, stream: false) == .foreignHost,
            "DNS rebinding")
        #expect(p.check(host: "127.0.0.1:8100", origin: nil, token: t, stream: false) == .foreignHost)
        #expect(
            p.check(host: "127.0.0.1:8099", origin: "http://attacker.example", token: t, stream: true) == .foreignOrigin
        )
        #expect(
            p.check(host: "127.0.0.1:8099", origin: "http://127.0.0.1:8099.attacker.example", token: t, stream: true)
                == .foreignOrigin)
        #expect(
            p.check(host: "127.0.0.1:8099", origin: "https://127.0.0.1:8099", token: t, stream: true) == .foreignOrigin)
        #expect(
            p.check(host: "127.0.0.1:8099", origin: "http://attacker.example", token: t, stream: false) == nil,
            "the page itself may be linked to")
    }

    @Test(
        "Nothing without the token: none, empty, wrong, one digit short or long; a forged Host and Origin do not stand in for it"
    )
    func token() {
        let p = WebAccessPolicy(address: "127.0.0.1", port: 8099, token: Self.token)
        let own = "http://127.0.0.1:8099"
        let host = "127.0.0.1:8099"
        #expect(
            Self.token.count == 32 && Self.token.allSatisfy(\.isHexDigit) && Self.token != WebAccessPolicy.makeToken())
        #expect(
            WebAccessPolicy.isWellFormedToken(Self.token)
                && !WebAccessPolicy.isWellFormedToken(Self.token.uppercased() + "x"))
        for stream in [false, true] {
            #expect(p.check(host: host, origin: own, token: nil, stream: stream) == .noToken)
            #expect(p.check(host: host, origin: own, token: "", stream: stream) == .noToken)
            #expect(
                p.check(host: host, origin: own, token: Substring(String(repeating: "0", count: 32)), stream: stream)
                    == .badToken)
            #expect(p.check(host: host, origin: own, token: Self.t.dropLast(), stream: stream) == .badToken)
            #expect(p.check(host: host, origin: own, token: Substring(Self.token + "0"), stream: stream) == .badToken)
            #expect(p.check(host: host, origin: own, token: Self.t, stream: stream) == nil)
        }
    }

    @Test("Another address: only that address, no localhost names")
    func lan() {
        let p = WebAccessPolicy(address: "192.0.2.7", port: 80, token: Self.token)
        #expect(p.check(host: "192.0.2.7:80", origin: "http://192.0.2.7:80", token: Self.t, stream: true) == nil)
        #expect(p.check(host: "localhost:80", origin: nil, token: Self.t, stream: false) == .foreignHost)
        #expect(p.check(host: "0.0.0.0:80", origin: nil, token: Self.t, stream: false) == .foreignHost)
        let v6 = WebAccessPolicy(address: "::1", port: 9, token: Self.token)
        #expect(v6.hosts.contains("[::1]:9") && v6.hosts.contains("localhost:9"))
    }

    @Test(
        "Every address: the address a connection arrived at, loopback and the machine's name; not another address or name"
    )
    func wildcard() {
        let p = WebAccessPolicy(address: "0.0.0.0", port: 8099, token: Self.token, hostName: "Desk")
        let via = "192.0.2.7:8099"
        #expect(
            p.check(
                host: "192.0.2.7:8099", origin: "http://192.0.2.7:8099", token: Self.t, stream: true, arrivedAt: via)
                == nil)
        #expect(
            p.check(host: "192.0.2.8:8099", origin: nil, token: Self.t, stream: false, arrivedAt: via) == .foreignHost,
            "another address")
        #expect(
            p.check(
                host: "192.0.2.7:8099", origin: "http://192.0.2.8:8099", token: Self.t, stream: true, arrivedAt: via)
                == .foreignOrigin)
        #expect(p.check(host: "desk.local:8099", origin: nil, token: Self.t, stream: false, arrivedAt: via) == nil)
        #expect(p.check(host: "desk:8099", origin: nil, token: Self.t, stream: false, arrivedAt: via) == nil)
        #expect(
            p.check(host: "127.0.0.1:8099", origin: nil, token: Self.t, stream: false, arrivedAt: "127.0.0.1:8099")
                == nil)
        #expect(
            p.check(host: "attacker.example:8099", origin: nil, token: Self.t, stream: false, arrivedAt: via)
                == .foreignHost)
        let v6 = WebAccessPolicy(address: "::", port: 80, token: Self.token)
        #expect(
            v6.check(host: "[fe80::1]:80", origin: nil, token: Self.t, stream: false, arrivedAt: "[fe80::1]:80") == nil)
        let bound = WebAccessPolicy(address: "192.0.2.7", port: 8099, token: Self.token)
        #expect(
            bound.check(host: "192.0.2.8:8099", origin: nil, token: Self.t, stream: false, arrivedAt: "192.0.2.8:8099")
                == .foreignHost,
            "arrivedAt counts only on every address")
    }

    @Test("--view parses [ADDR:]PORT")
    func parse() {
        #expect(WebAccessPolicy.parse("8099")! == ("127.0.0.1", 8099))
        #expect(WebAccessPolicy.parse("0.0.0.0:80")! == ("0.0.0.0", 80))
        #expect(WebAccessPolicy.parse("[::1]:8099")! == ("::1", 8099))
        #expect(WebAccessPolicy.parse("localhost:5")! == ("127.0.0.1", 5))
        for bad in ["", "x", ":80", "1.2.3.4:", "1.2.3.4:70000", "[::1]8099", "[::1"] {
            #expect(WebAccessPolicy.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("Stream labels are escaped in the JSON the page reads")
    func json() {
        let s = ViewStreamState(
            label: "a\"b\\c</script>\n", frames: 2, sequence: 1, rollDegrees: 1.5, pitchDegrees: -2, yawDegrees: 0,
            receivedNanoseconds: 9)
        let text = ViewJSON.update([s], refusals: [.foreignHost: 3])
        #expect(text.contains(#""label":"a\"b\\c\u003c/script\u003e\n""#), "\(text)")
        #expect(
            text.contains(#""refused":{"foreign-host":3,"foreign-origin":0,"no-token":0,"bad-token":0,"#), "\(text)")
        #expect(text.hasSuffix(#""edges_us":[100,200,500,1000,2000,5000,10000,20000,50000]}"#), "\(text)")
    }

    @Test("Per stream: a gap in the sequence counts as lost, a late one as reordered (and no longer lost)")
    func lossAndReorder() {
        var s = ViewStreamState(
            label: "x", frames: 1, sequence: 1, rollDegrees: 0, pitchDegrees: 0, yawDegrees: 0, receivedNanoseconds: 0)
        s.take(sequence: 2, roll: 1, pitch: 0, yaw: 0, nanoseconds: 1)
        s.take(sequence: 5, roll: 2, pitch: 0, yaw: 0, nanoseconds: 2)  // 3 and 4 missing
        #expect(s.lost == 2 && s.reordered == 0 && s.sequence == 5 && s.frames == 3)
        s.take(sequence: 4, roll: 3, pitch: 0, yaw: 0, nanoseconds: 3)  // 4 arrives late
        #expect(s.lost == 1 && s.reordered == 1 && s.sequence == 5 && s.rollDegrees == 3)
        #expect(s.json.contains("\"lost\":1,\"reordered\":1"))
    }

    @Test("Recenter: own Host, own Origin (required), and the token; read-only where none is offered")
    func recenter() {
        let p = WebAccessPolicy(address: "127.0.0.1", port: 8099, token: Self.token)
        let own = "http://127.0.0.1:8099"
        let t = Self.t
        let h = "127.0.0.1:8099"
        #expect(p.checkRecenter(host: h, origin: own, token: t, offered: true) == nil)
        #expect(p.checkRecenter(host: "evil.example:8099", origin: own, token: t, offered: true) == .foreignHost)
        #expect(
            p.checkRecenter(host: h, origin: nil, token: t, offered: true) == .foreignOrigin,
            "no Origin: not a page of ours")
        #expect(p.checkRecenter(host: h, origin: "http://evil.example", token: t, offered: true) == .foreignOrigin)
        #expect(p.checkRecenter(host: h, origin: own, token: nil, offered: true) == .noToken)
        #expect(
            p.checkRecenter(host: h, origin: own, token: Substring(String(Self.token.dropLast()) + "x"), offered: true)
                == .badToken)
        #expect(p.checkRecenter(host: h, origin: own, token: Substring(Self.token + "0"), offered: true) == .badToken)
        #expect(p.checkRecenter(host: h, origin: own, token: t, offered: false) == .readOnly)
    }

    @Test("Histograms count durations in fixed buckets over the last 5–10 s")
    func histogram() {
        var h = ViewHistogram()
        let s: UInt64 = 1_000_000_000
        h.record(50_000, at: 0)  // 50 µs: first bucket
        h.record(1_000_000, at: 1 * s)  // 1 ms: the bucket below 2 ms
        h.record(80_000_000, at: 2 * s)  // 80 ms: the last
        #expect(h.counts == [1, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        h.record(150_000, at: 6 * s)  // a new half: the first half is still shown
        #expect(h.counts == [1, 1, 0, 0, 1, 0, 0, 0, 0, 1] && h.total == 4)
        h.record(150_000, at: 11 * s + 1)  // the first half has gone
        #expect(h.counts == [0, 2, 0, 0, 0, 0, 0, 0, 0, 0])
        h.record(150_000, at: 40 * s)  // after a long pause only the latest remains
        #expect(h.counts == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0])

        var state = ViewStreamState(
            label: "x", frames: 1, sequence: 1, rollDegrees: 0, pitchDegrees: 0, yawDegrees: 0,
            receivedNanoseconds: 1_000_000)
        state.take(sequence: 2, roll: 0, pitch: 0, yaw: 0, nanoseconds: 5_000_000, sentNanoseconds: 4_700_000)
        #expect(
            state.intervals.counts[5] == 1 && state.latencies.counts[2] == 1,
            "4 ms apart (2–5 ms), 300 µs late (200–500 µs)")
        #expect(
            state.json.contains(#""interval":[0,0,0,0,0,1,0,0,0,0],"latency":[0,0,1,0,0,0,0,0,0,0]"#), "\(state.json)")
    }
}

@Suite("HTTP request heads and WebSocket frames, as the view reads them")
struct ViewProtocolTests {
    @Test("A request head: request line, fields in lower case, the length taken")
    func head() {
        let text =
            "GET /stream?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nConnection: keep-alive, Upgrade\r\nUpgrade:websocket \r\n\r\nBODY"
        guard case .complete(let head, let length) = HTTPRequestHead.parse(Array(text.utf8)) else {
            Issue.record("not parsed")
            return
        }
        #expect(
            head.method == "GET" && head.target == "/stream?x=1" && head.path == "/stream"
                && length == text.utf8.count - 4)
        #expect(head.field("HOST") == "127.0.0.1:9" && head.field("upgrade") == "websocket")
        #expect(head.field("connection", contains: "upgrade") && !head.field("connection", contains: "close"))
        #expect(HTTPRequestHead.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)) == .incomplete)
    }

    @Test("Malformed or oversized heads are refused, not guessed at")
    func refusedHeads() {
        let bad = [
            "GET / HTTP/1.1\nHost: x\r\n\r\n",  // bare LF
            "GET / HTTP/1.1\r\nHost : x\r\n\r\n",  // space before the colon
            "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",  // two Hosts
            "GET  / HTTP/1.1\r\n\r\n", "get / HTTP/1.1\r\n\r\n", "GET x HTTP/1.1\r\n\r\n", "GET / HTTP/2\r\n\r\n",
            "GET / HTTP/1.1\r\n: x\r\n\r\n", "GET / HTTP/1.1\r\n folded\r\n\r\n"
        ]
        for text in bad {
            guard case .invalid = HTTPRequestHead.parse(Array(text.utf8)) else {
                Issue.record("accepted: \(text.debugDescription)")
                continue
            }
        }
        let huge = "GET / HTTP/1.1\r\n" + String(repeating: "X-A: aaaaaaaaaa\r\n", count: 600)
        guard case .invalid = HTTPRequestHead.parse(Array(huge.utf8)) else {
            return #expect(Bool(false), "an endless head was waited for")
        }
        let many = "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 65) + "\r\n"
        guard case .invalid = HTTPRequestHead.parse(Array(many.utf8)) else {
            return #expect(Bool(false), "65 fields accepted")
        }
    }

    @Test("Base64: RFC 4648's vectors both ways; anything not canonical refused")
    func base64() {
        for (plain, coded) in [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy")
        ] {
            #expect(Base64.encode(Array(plain.utf8)) == coded)
            #expect(Base64.decode(coded) == Array(plain.utf8))
        }
        #expect(Base64.decode("dGhlIHNhbXBsZSBub25jZQ==")?.count == 16, "RFC 6455's sample key is 16 bytes")
        for bad in ["Zg=", "Zg", "Z===", "Zh==", "Zm9v!A==", "=Zm9", "Zg==Zg=="] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("Server frames: 7-, 16- and 64-bit lengths, unmasked and final")
    func encode() {
        #expect(
            WebSocketFrame.encode(.text, Array("Hello".utf8)) == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f],
            "RFC 6455 §5.7")
        let mid = WebSocketFrame.encode(.text, [UInt8](repeating: 1, count: 256))
        #expect(Array(mid.prefix(4)) == [0x81, 126, 0x01, 0x00] && mid.count == 260)
        let big = WebSocketFrame.encode(.binary, [UInt8](repeating: 1, count: 65536))
        #expect(Array(big.prefix(10)) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0] && big.count == 65546)
        #expect(WebSocketFrame.close(1000) == [0x88, 0x02, 0x03, 0xE8])
    }

    @Test("Client frames: masked ones decoded; unmasked, oversized and bad control frames refused")
    func decode() {
        // RFC 6455 §5.7: "Hello"
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(
            WebSocketFrame.decodeClientFrame(masked)
                == .frame(.text, payload: Array("Hello".utf8), final: true, length: 11))
        #expect(WebSocketFrame.decodeClientFrame(masked.prefix(8)) == .incomplete)
        #expect(
            WebSocketFrame.decodeClientFrame([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
                == .invalid(code: 1002, reason: "unmasked client frame"))
        #expect(
            WebSocketFrame.decodeClientFrame([0x81, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0])
                == .invalid(code: 1009, reason: "client frame too large"))
        #expect(
            WebSocketFrame.decodeClientFrame([0x89, 0xFE, 0, 200, 0, 0, 0, 0])
                == .invalid(code: 1002, reason: "bad control frame"))
        #expect(
            WebSocketFrame.decodeClientFrame([0xC1, 0x80, 0, 0, 0, 0])
                == .invalid(code: 1002, reason: "reserved bits set"))
        #expect(
            WebSocketFrame.decodeClientFrame([0x83, 0x80, 0, 0, 0, 0]) == .invalid(code: 1002, reason: "unknown opcode")
        )
        #expect(
            WebSocketFrame.decodeClientFrame([0x88, 0x80, 1, 2, 3, 4])
                == .frame(.close, payload: [], final: true, length: 6))
    }
}
