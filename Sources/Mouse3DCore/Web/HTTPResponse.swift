/// An HTTP/1.1 response the view sends: a status, fields and a body, always closing the
/// connection afterwards (the page's requests are few; a WebSocket upgrade keeps it instead).
public struct HTTPResponse: Sendable, Equatable {
    /// Status code and reason phrase.
    public var status: Int, reason: String
    /// Header fields, in order.
    public var fields: [(String, String)]
    /// The body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, reason: String, fields: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.fields = fields
        self.body = body
    }

    /// A `text/plain` response saying `text`.
    public static func text(_ status: Int, _ reason: String, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, reason: reason, fields: [("Content-Type", "text/plain; charset=utf-8")],
            body: Array(text.utf8))
    }

    /// The bytes on the wire, with `Content-Length` and `Connection: close` added.
    public var encoded: [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.reason == b.reason && a.fields.map(\.0) == b.fields.map(\.0)
            && a.fields.map(\.1) == b.fields.map(\.1) && a.body == b.body
    }
}

extension HTTPResponse {
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
