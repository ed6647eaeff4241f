extension WebSocketFrame {
    /// The server's answer to a version-13 WebSocket upgrade request (RFC 6455 §4.2.2): `101
    /// Switching Protocols` with the accept value of its key, or nil when `head` is not such a
    /// request (``HTTPResponse/upgradeExpected`` is then due). Host, origin and token are the
    /// caller's to check before.
    public static func handshakeResponse(to head: HTTPRequestHead) -> [UInt8]? {
        guard head.field("upgrade", contains: "websocket"), head.field("connection", contains: "upgrade"),
            head.field("sec-websocket-version") == "13", let key = head.field("sec-websocket-key"),
            Base64.decode(key)?.count == 16
        else { return nil }
        let accept = Base64.encode(SHA1.hash(Array((key + handshakeGUID).utf8)))
        return Array(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
                .utf8)
    }
}

extension HTTPResponse {
    /// The answer to a request on a WebSocket's path that is not a valid upgrade.
    public static let upgradeExpected = text(400, "Bad Request", "a WebSocket upgrade (version 13) is expected here\n")
    /// The answer to bytes that are not a request head this server takes.
    public static let badRequest = text(400, "Bad Request", "bad request\n")

    /// The fields of an HTML page served with its script inline and nothing from elsewhere:
    /// `contentSecurityPolicy`, never cached, never sniffed, no referrer.
    public static func pageFields(contentSecurityPolicy: String) -> [(String, String)] {
        [
            ("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", contentSecurityPolicy),
            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")
        ]
    }
}

extension HTTPRequestHead {
    /// What a connection's received bytes gave.
    public enum Taken: Sendable, Equatable {
        /// Not a whole head yet.
        case incomplete
        /// Not a head this server takes (a 400 is due).
        case invalid
        /// A head, taken out of the bytes (what followed it stays).
        case head(HTTPRequestHead)
    }

    /// Takes a whole head from the start of `inbound`, looking for its end only past `scanned` (see
    /// ``isComplete(_:scanned:)``).
    public static func take(from inbound: inout [UInt8], scanned: inout Int) -> Taken {
        guard isComplete(inbound, scanned: &scanned) else { return .incomplete }
        switch parse(inbound) {
        case .incomplete: return .incomplete
        case .invalid: return .invalid
        case .complete(let head, let length):
            inbound.removeFirst(length)
            return .head(head)
        }
    }
}
