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
}
