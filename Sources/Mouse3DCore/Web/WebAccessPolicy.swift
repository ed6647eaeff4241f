/// Who may use the live view. A server on this machine is reachable from every web page the user
/// opens and from every local process (other users' too), so, as Jupyter does, nothing is served
/// without the view's token: the URL printed at start carries it (`/?token=...`), the page sends it
/// on its stream and with a recenter. Beyond the token, a request is refused unless its `Host` is one
/// the view serves (against DNS rebinding: a foreign name that resolves here) and, for the stream
/// and recenter, unless its `Origin` is the view's own page (against other sites' pages). Pure: the
/// server asks, this answers.
public struct WebAccessPolicy: Sendable, Equatable {
    /// The `Host` values accepted: the address and port served, and `localhost` and `[::1]` with the
    /// port when the view listens on loopback or on every address. On every address, the address a
    /// connection came in on (see `check`'s `arrivedAt`) is accepted too.
    public let hosts: Set<String>
    /// Whether the view listens on every address (0.0.0.0 or ::).
    public let isWildcard: Bool
    /// The secret every request must carry.
    public let token: String
    /// The scheme of the server's own pages: `http` (the view) or `https` (the phone page).
    public let scheme: String

    /// A refusal, counted by reason.
    public enum Refusal: String, Sendable, CaseIterable {
        /// No `Host` header, or one the view does not serve.
        case foreignHost = "foreign-host"
        /// A stream or recenter request from another site's page (or a recenter with no `Origin`).
        case foreignOrigin = "foreign-origin"
        /// A request without the view's token.
        case noToken = "no-token"
        /// A request with a wrong token.
        case badToken = "bad-token"
        /// A recenter request to a view that offers none (not on loopback, or nothing to recenter).
        case readOnly = "read-only"
        /// A connection past a bound on open connections (the newcomer turned away, or the oldest
        /// request or page closed to make room for it).
        case tooManyConnections = "too-many-connections"
        /// A request that is not well-formed HTTP/1.1 or WebSocket, or too large.
        case malformed = "malformed"
        /// A connection that did not finish its request in time.
        case tooSlow = "too-slow"
        /// A page that sent more frames than a page does (it sends none but close and pong).
        case tooManyFrames = "too-many-frames"
        /// A page that left more unread than the view holds for it (a ping flood that reads no pong).
        case unread = "unread"
        /// Recenter requests past a few a second.
        case tooManyRecentres = "too-many-recentres"
    }

    /// The policy for a view listening on `address` (numeric, as given) and `port`, with `token`.
    /// `hostName` (this machine's name) is accepted as a Host for a view on every address.
    public init(address: String, port: UInt16, token: String, hostName: String? = nil, scheme: String = "http") {
        self.scheme = scheme
        var hosts: Set<String> = []
        let bracketed = address.contains(":") ? "[\(address)]" : address
        hosts.insert("\(bracketed):\(port)")
        isWildcard = address == "0.0.0.0" || address == "::"
        if Self.isLoopback(address) || isWildcard {
            hosts.formUnion(["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"])
        }
        if isWildcard, let name = hostName?.lowercased(), !name.isEmpty {
            hosts.formUnion(["\(name):\(port)", "\(name).local:\(port)"])
        }
        self.hosts = hosts
        self.token = token
    }

    /// Whether `address` is a loopback address (127.0.0.0/8 or ::1).
    public static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address == "localhost" || address.hasPrefix("127.")
    }

    /// Whether `host` is one the view serves; `arrivedAt` is the address and port the connection
    /// came in on (`1.2.3.4:P`, `[fe80::1]:P`), which a view on every address serves as well.
    public func serves(host: String?, arrivedAt: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return hosts.contains(host) || (isWildcard && arrivedAt.map { $0.lowercased() == host } == true)
    }

    /// Checks a request: its `Host` header, its `token` (from the query or a header), and for the
    /// stream its `Origin` header, if any (a browser always sends one; a script may not).
    public func check(
        host: String?, origin: String?, token presented: Substring?, stream: Bool, arrivedAt: String? = nil
    ) -> Refusal? {
        guard serves(host: host, arrivedAt: arrivedAt) else { return .foreignHost }
        if let refusal = checkToken(presented) { return refusal }
        if stream, let origin, !isOwn(origin: origin, arrivedAt: arrivedAt) { return .foreignOrigin }
        return nil
    }

    /// Whether `origin` is the server's own page.
    public func isOwn(origin: String, arrivedAt: String?) -> Bool {
        let o = origin.lowercased()
        let prefix = scheme + "://"
        guard o.hasPrefix(prefix) else { return false }
        return serves(host: String(o.dropFirst(prefix.count)), arrivedAt: arrivedAt)
    }

    /// Checks a recenter request (a `POST`): the `Host` must be the view's, the `Origin` must be
    /// present and the view's own (a browser always sends it on a POST; another site's page cannot
    /// forge it), and `token` must be the view's. `offered` is false where the view offers no recenter.
    public func checkRecenter(
        host: String?, origin: String?, token presented: Substring?, offered: Bool, arrivedAt: String? = nil
    ) -> Refusal? {
        guard serves(host: host, arrivedAt: arrivedAt) else { return .foreignHost }
        if let refusal = checkToken(presented) { return refusal }
        guard offered else { return .readOnly }
        guard let origin, isOwn(origin: origin, arrivedAt: arrivedAt) else { return .foreignOrigin }
        return nil
    }

    /// The token check alone: missing, or compared in time independent of where it differs.
    public func checkToken(_ presented: Substring?) -> Refusal? {
        guard let presented, !presented.isEmpty else { return .noToken }
        return Self.equal(presented, token) ? nil : .badToken
    }

    /// Compares two secrets without stopping at the first difference.
    public static func equal(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// A new secret: 128 random bits in hexadecimal (the system's generator).
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether `text` is a token as ``makeToken()`` writes them (32 lower-case hex digits).
    public static func isWellFormedToken(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

extension WebAccessPolicy {
    /// Parses `--view`'s `[ADDR:]PORT` (an IPv6 address in brackets): the address defaults to
    /// 127.0.0.1; port 0 takes any free port. Nil if it is not that form.
    public static func parse(_ text: String) -> (address: String, port: UInt16)? {
        var address = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            address = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            address = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if address == "localhost" { address = "127.0.0.1" }
        }
        guard !address.isEmpty, let port = UInt16(portText) else { return nil }
        return (address, port)
    }
}
