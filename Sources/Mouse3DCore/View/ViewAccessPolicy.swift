/// Who may use the live view. A server on this machine is reachable from every web page the user
/// opens and from every local process (other users' too), so, as Jupyter does, nothing is served
/// without the view's token: the URL printed at start carries it (`/?token=...`), the page sends it
/// on its stream and with a recenter. Beyond the token, a request is refused unless its `Host` is one
/// the view serves (against DNS rebinding: a foreign name that resolves here) and, for the stream
/// and recenter, unless its `Origin` is the view's own page (against other sites' pages). Pure: the
/// server asks, this answers.
public struct ViewAccessPolicy: Sendable, Equatable {
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
        /// A connection past the view's bound on open connections (the newcomer, or the oldest
        /// connection closed to make room for it).
        case tooManyConnections = "too-many-connections"
        /// A request that is not well-formed HTTP/1.1 or WebSocket, or too large.
        case malformed = "malformed"
        /// A connection that did not finish its request in time.
        case tooSlow = "too-slow"
        /// A page that sent more frames than a page does (it sends none but close and pong).
        case tooManyFrames = "too-many-frames"
        /// A page that left more unread than the view holds for it (a ping flood that reads no pong).
        case unread = "unread"
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
    public func check(host: String?, origin: String?, token presented: Substring?, stream: Bool, arrivedAt: String? = nil) -> Refusal? {
        guard serves(host: host, arrivedAt: arrivedAt) else { return .foreignHost }
        if let refusal = checkToken(presented) { return refusal }
        if stream, let origin, !isOwn(origin: origin, arrivedAt: arrivedAt) { return .foreignOrigin }
        return nil
    }

    /// Whether `origin` is the server's own page.
    public func isOwn(origin: String, arrivedAt: String?) -> Bool {
        let o = origin.lowercased(), prefix = scheme + "://"
        guard o.hasPrefix(prefix) else { return false }
        return serves(host: String(o.dropFirst(prefix.count)), arrivedAt: arrivedAt)
    }

    /// Checks a recenter request (a `POST`): the `Host` must be the view's, the `Origin` must be
    /// present and the view's own (a browser always sends it on a POST; another site's page cannot
    /// forge it), and `token` must be the view's. `offered` is false where the view offers no recenter.
    public func checkRecenter(host: String?, origin: String?, token presented: Substring?, offered: Bool, arrivedAt: String? = nil) -> Refusal? {
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
        let x = Array(a.utf8), y = Array(b.utf8)
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

/// What the live view shows of one stream: its latest attitude and the receiver's figures.
public struct ViewStreamState: Sendable, Equatable {
    /// The stream's label (sender and stream id, or "local").
    public var label: String
    /// Updates seen.
    public var frames: UInt64
    /// The latest sequence number.
    public var sequence: UInt64
    /// The latest attitude, in degrees.
    public var rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double
    /// Time of the latest update, in monotonic nanoseconds.
    public var receivedNanoseconds: UInt64
    /// Sequence numbers skipped (lost on the way, as far as the view can tell) and updates that came
    /// after a later one (reordered).
    public var lost: UInt64 = 0, reordered: UInt64 = 0
    /// Time between updates as they arrived, over the last 10 s (jitter shows as spread).
    public var intervals = ViewHistogram()
    /// Send→arrival latency over the last 10 s, where the receiver measures it (`--latency`: same machine).
    public var latencies = ViewHistogram()

    /// A state.
    public init(label: String, frames: UInt64, sequence: UInt64, rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double, receivedNanoseconds: UInt64) {
        self.label = label
        self.frames = frames
        self.sequence = sequence
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.yawDegrees = yawDegrees
        self.receivedNanoseconds = receivedNanoseconds
    }

    /// Takes the next update of this stream: counts a gap in the sequence as lost and an update older
    /// than the latest as reordered; the attitude shown is the latest to arrive.
    /// `sentNanoseconds` is the sender's send time on this machine's clock, when the receiver measures latency.
    public mutating func take(sequence: UInt64, roll: Double, pitch: Double, yaw: Double, nanoseconds: UInt64, sentNanoseconds: UInt64? = nil) {
        frames += 1
        if nanoseconds > receivedNanoseconds { intervals.record(nanoseconds - receivedNanoseconds, at: nanoseconds) }
        if let sent = sentNanoseconds, sent <= nanoseconds { latencies.record(nanoseconds - sent, at: nanoseconds) }
        if sequence > self.sequence {
            lost += sequence - self.sequence - 1
        } else {
            reordered += 1
            if lost > 0 { lost -= 1 }  // it was counted lost when the later one came
        }
        self.sequence = max(self.sequence, sequence)
        rollDegrees = roll
        pitchDegrees = pitch
        yawDegrees = yaw
        receivedNanoseconds = nanoseconds
    }

    /// The JSON object the page reads.
    public var json: String {
        "{\"label\":\(JSONText.string(label)),\"frames\":\(frames),\"seq\":\(sequence),"
            + "\"roll\":\(rollDegrees),\"pitch\":\(pitchDegrees),\"yaw\":\(yawDegrees),\"t\":\(receivedNanoseconds),"
            + "\"lost\":\(lost),\"reordered\":\(reordered),\"interval\":\(intervals.json),\"latency\":\(latencies.total == 0 ? "null" : latencies.json)}"
    }
}

/// Counts of durations in fixed buckets over a sliding window of 10 s (two halves of 5 s: what is
/// shown covers the last 5 to 10 s), for the page's histograms. Fixed size whatever arrives.
public struct ViewHistogram: Sendable, Equatable {
    /// Upper bucket edges in microseconds; a last bucket takes everything from 50 ms up.
    public static let edgesMicroseconds: [UInt64] = [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]
    /// How long a half of the window lasts.
    public static let halfWindowNanoseconds: UInt64 = 5_000_000_000
    var current = [UInt32](repeating: 0, count: edgesMicroseconds.count + 1)
    var previous = [UInt32](repeating: 0, count: edgesMicroseconds.count + 1)
    var halfStarted: UInt64?

    /// An empty histogram.
    public init() {}

    /// Counts `duration` (ns) at time `now` (monotonic ns).
    public mutating func record(_ duration: UInt64, at now: UInt64) {
        let started = halfStarted ?? now
        if now &- started >= Self.halfWindowNanoseconds {
            previous = now &- started >= 2 * Self.halfWindowNanoseconds ? [UInt32](repeating: 0, count: current.count) : current
            current = [UInt32](repeating: 0, count: current.count)
            halfStarted = now
        } else if halfStarted == nil {
            halfStarted = now
        }
        let micro = duration / 1000
        let bucket = Self.edgesMicroseconds.firstIndex { micro < $0 } ?? Self.edgesMicroseconds.count
        current[bucket] &+= 1
    }

    /// The counts per bucket over the window.
    public var counts: [UInt32] { zip(current, previous).map { $0 &+ $1 } }
    /// How many durations the window holds.
    public var total: Int { counts.reduce(0) { $0 + Int($1) } }
    /// The counts as a JSON array.
    public var json: String { "[" + counts.map(String.init).joined(separator: ",") + "]" }
}

/// The small JSON the view sends, written by hand (numbers round-trip; strings escaped).
public enum ViewJSON {
    /// One update message: every stream's state and the refusals so far.
    public static func update(_ streams: [ViewStreamState], refusals: [ViewAccessPolicy.Refusal: Int]) -> String {
        let counts = ViewAccessPolicy.Refusal.allCases.map { "\"\($0.rawValue)\":\(refusals[$0] ?? 0)" }.joined(separator: ",")
        return "{\"streams\":[" + streams.map(\.json).joined(separator: ",") + "],\"refused\":{" + counts + "},\"edges_us\":["
            + ViewHistogram.edgesMicroseconds.map(String.init).joined(separator: ",") + "]}"
    }
}

extension ViewAccessPolicy {
    /// Parses `--view`'s `[ADDR:]PORT` (an IPv6 address in brackets): the address defaults to
    /// 127.0.0.1; port 0 takes any free port. Nil if it is not that form.
    public static func parse(_ text: String) -> (address: String, port: UInt16)? {
        var address = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
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
