import Mouse3DCore
import Testing

@Suite("The parts the view and the phone page share: the outbound queue, the upgrade, taking a head")
struct WebConnectionPartsTests {
    @Test("An idle queue takes one message whatever its size; a pending one refuses what would pass the limit")
    func queueLimit() {
        var q = OutboundQueue()
        let big = q.enqueue([UInt8](repeating: 1, count: 100), limit: 10)
        #expect(big)
        #expect(q.held == 100)
        let over = q.enqueue([2], limit: 100)
        #expect(!over)
        #expect(q.held == 100)
        let within = q.enqueue([2], limit: 101)
        #expect(within)
        #expect(q.bytes.last == 2 && q.held == 101)
    }

    @Test("Drain writes until the socket takes no more, keeps the rest, and empties when all went")
    func drain() {
        var q = OutboundQueue()
        _ = q.enqueue(Array(0..<10), limit: 64)
        var taken: [UInt8] = []
        var room = 4
        let first = q.drain { bytes in
            let n = min(room, bytes.count)
            taken += bytes.prefix(n)
            room -= n
            return n
        }
        #expect(first.0 == .blocked && first.progressed)
        #expect(taken == [0, 1, 2, 3] && q.held == 6 && q.isPending)
        let stuck = q.drain { _ in 0 }
        #expect(stuck.0 == .blocked && !stuck.progressed)
        let rest = q.drain { bytes in
            taken += bytes
            return bytes.count
        }
        #expect(rest.0 == .empty && rest.progressed)
        #expect(taken == Array(0..<10) && !q.isPending && q.bytes.isEmpty && q.sent == 0)
        _ = q.enqueue([7], limit: 1)
        let failed = q.drain { _ in nil }
        #expect(failed.0 == .failed)
        #expect(q.isPending)
    }

    static func head(_ text: String) -> HTTPRequestHead {
        var bytes = Array(text.utf8)
        var scanned = 0
        guard case .head(let head) = HTTPRequestHead.take(from: &bytes, scanned: &scanned) else {
            Issue.record("not a head: \(text)")
            return HTTPRequestHead(method: "", target: "", fields: [])
        }
        return head
    }

    @Test("The upgrade's answer carries RFC 6455's accept value for its sample key; a wrong version gets none")
    func upgrade() {
        let request =
            "GET /stream HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let answer = WebSocketFrame.handshakeResponse(to: Self.head(request)).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(answer?.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n") == true)
        #expect(answer?.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") == true)
        #expect(answer?.hasSuffix("\r\n\r\n") == true)
        let old = request.replacing("Version: 13", with: "Version: 8")
        #expect(WebSocketFrame.handshakeResponse(to: Self.head(old)) == nil)
        let shortKey = request.replacing("dGhlIHNhbXBsZSBub25jZQ==", with: "c2hvcnQ=")
        #expect(WebSocketFrame.handshakeResponse(to: Self.head(shortKey)) == nil)
    }

    @Test("Taking a head leaves what followed it; a part of one is left whole; garbage is invalid")
    func take() {
        var bytes = Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n\u{81}\u{80}".utf8)
        var scanned = 0
        guard case .head(let head) = HTTPRequestHead.take(from: &bytes, scanned: &scanned) else {
            Issue.record("no head")
            return
        }
        #expect(head.method == "GET" && head.field("host") == "h")
        #expect(bytes == Array("\u{81}\u{80}".utf8))
        var part = Array("GET / HTTP/1.1\r\nHo".utf8)
        scanned = 0
        #expect(HTTPRequestHead.take(from: &part, scanned: &scanned) == .incomplete)
        #expect(part.count == 18)
        var garbage = Array("\u{0}\u{1}\r\n\r\n".utf8)
        scanned = 0
        #expect(HTTPRequestHead.take(from: &garbage, scanned: &scanned) == .invalid)
    }
}
