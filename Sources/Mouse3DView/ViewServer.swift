import Mouse3DCore
import Mouse3DLinux

/// The live view: a small HTTP/1.1 and WebSocket server on the process's event loop that serves the
/// page and pushes every stream's latest attitude at most 60 times a second.
///
/// Whoever can reach the port may send anything, so nothing is served without the view's token (see
/// ``WebAccessPolicy``), and the connections are bounded as ``WebConnections`` bounds them: at most
/// ``maximumPages`` pages and ``maximumRequests`` requests in progress, each bound kept apart (a
/// newcomer makes room among the requests, a page coming makes room among the pages), a request
/// head within ``headTimeoutNanoseconds``, every frame a page sends counted against a few a second
/// (it sends none but close and pong; more closes it), and one pending update per page (latest
/// wins; a page is closed once stalled). Every refusal is counted by reason; none is logged
/// per request. Nothing here blocks.
public final class ViewServer: WebConnectionsDelegate {
    /// Streams shown; a new stream past this replaces the one heard from longest ago.
    public static let maximumStreams = 64
    /// A stream not heard from for this long is no longer shown.
    public static let streamSilenceNanoseconds: UInt64 = 60_000_000_000
    /// Pages served at once (connections upgraded to the stream, each with the token shown).
    public static let maximumPages = 32
    /// Requests in progress at once (connections not yet a page: a browser's page load, its stream's
    /// handshake, and whatever anyone who can reach the port opens). More than one wake-up accepts
    /// (``WebConnections/Limits/acceptBudget``, 16): a request accepted in one wake-up and read in
    /// the next cannot be pushed out by the connections the next accepts before it is read.
    public static let maximumRequests = 32
    /// How long a connection may take to send its request head.
    public static let headTimeoutNanoseconds: UInt64 = 5_000_000_000
    /// How long a request is spared while older ones can make room.
    static let youngNanoseconds: UInt64 = 250_000_000
    /// The fastest the pages are updated, in Hz: a display's rate.
    public static let updateHertz = 60.0
    static let pushInterval = UInt64(1e9 / updateHertz)
    /// The connections' bounds: every frame a page sends counts (it sends none but close and pong).
    public static var limits: WebConnections.Limits {
        WebConnections.Limits(
            maximumConnections: maximumPages + maximumRequests, headTimeoutNanoseconds: headTimeoutNanoseconds)
    }

    /// Who may use it.
    public let policy: WebAccessPolicy
    /// The address and port it listens on.
    public let address: String, port: UInt16
    /// The secret every request carries (in the printed URL).
    public var token: String { policy.token }
    /// Recentres the attitude (called on the loop's thread for an accepted recenter request); nil
    /// when the view offers no recenter.
    let onRecenter: (() throws -> Void)?

    let server: WebConnections
    let page: [UInt8]
    var streams: [String: ViewStreamState] = [:]
    var order: [String] = []
    var lastStreamSweep: UInt64 = 0
    /// Refusals so far, by reason.
    public private(set) var refusals = RefusalTally<WebAccessPolicy.Refusal>()
    /// Recenter requests carried out.
    public private(set) var recentres = 0
    /// Recenters allowed: a burst, then a few a second.
    static let recentresPerSecond = 2.0, recenterBurst = 4.0
    var recenterBudget = TokenBucket(ratePerSecond: recentresPerSecond, burst: recenterBurst, now: 0)
    var version: UInt64 = 0, pushedVersion: UInt64 = 0, lastPush: UInt64 = 0
    /// Whether the source has ended.
    var ended = false

    /// Listens on `address` (numeric IPv4 or IPv6) and `port` (0: any free one, see ``port``),
    /// serving only requests that carry `token`. `onRecenter`, taken only for a loopback view,
    /// offers a recenter button.
    public init(
        address: String, port: UInt16, token: String, device: String = "sensor", onRecenter: (() throws -> Void)? = nil
    ) throws {
        let listener: TCPListener
        do {
            listener = try TCPListener.listening(host: address, port: port)
        } catch {
            throw ViewServerError(message: "cannot serve the view on \(address):\(port): \(error)")
        }
        self.address = address
        self.port = listener.localAddress.port
        policy = WebAccessPolicy(address: address, port: self.port, token: token, hostName: FileSystem.hostName)
        server = WebConnections(listener: listener, limits: Self.limits, recordsArrival: policy.isWildcard)
        let recenter = WebAccessPolicy.isLoopback(address) ? onRecenter : nil
        self.onRecenter = recenter
        page = Array(ViewPage.html(token: token, offersRecenter: recenter != nil, device: device).utf8)
        server.delegate = self
    }

    /// The address to open the view at, with its token. On every address, the machine's name on the
    /// local network (`NAME.local`, Avahi's); any of its addresses serves as well.
    public var url: String {
        let host =
            policy.isWildcard
            ? FileSystem.hostName.lowercased() + ".local" : address.contains(":") ? "[\(address)]" : address
        return "http://\(host):\(port)/?token=\(token)"
    }

    /// Serves on `loop` until ``stop()``.
    public func attach(to loop: EventLoop) { server.attach(to: loop) }

    /// Stops serving: every connection is closed.
    public func stop() { server.stop() }

    /// Takes the latest attitude of a stream (on the loop's thread; never waits on the network).
    public func publish(
        label: String, sequence: UInt64, roll: Double, pitch: Double, yaw: Double, nanoseconds: UInt64,
        sentNanoseconds: UInt64? = nil
    ) {
        if streams[label] != nil {
            streams[label]!.take(
                sequence: sequence, roll: roll, pitch: pitch, yaw: yaw, nanoseconds: nanoseconds,
                sentNanoseconds: sentNanoseconds)
        } else {
            if streams.count >= Self.maximumStreams,
                let quietest = order.min(by: {
                    (streams[$0]?.receivedNanoseconds ?? 0) < (streams[$1]?.receivedNanoseconds ?? 0)
                })
            {
                forget(quietest)  // a sender that restarted is a new stream; the newest is the one to show
            }
            streams[label] = ViewStreamState(
                label: label, frames: 1, sequence: sequence, rollDegrees: roll, pitchDegrees: pitch, yawDegrees: yaw,
                receivedNanoseconds: nanoseconds)
            order.append(label)
        }
        version &+= 1
    }

    func forget(_ label: String) {
        streams[label] = nil
        order.removeAll { $0 == label }
        version &+= 1
    }

    /// Stops showing streams silent for ``streamSilenceNanoseconds`` (checked at most once a second).
    func forgetSilentStreams(now: UInt64) {
        guard now >= lastStreamSweep + 1_000_000_000 else { return }
        lastStreamSweep = now
        for label in order where now > (streams[label]?.receivedNanoseconds ?? 0) + Self.streamSilenceNanoseconds {
            forget(label)
        }
    }

    /// One line on what was refused, or nil if nothing was.
    public var summary: String? {
        refusals.listing.map { "view: refused " + $0 }
    }

    // MARK: Connections

    /// A newcomer is a request, and makes room only among the requests: a page has shown the token,
    /// and connections anyone can open must not push it out (they did, one page each, while the two
    /// shared one bound). With ``maximumRequests`` in progress, a request accepted before this turn
    /// makes room (one accepted now has had no chance to send its head: a flood of connections cannot
    /// push out a browser's fresh request): first one that is closing, then the oldest that has been
    /// sending its head for a while (connections that send nothing cannot keep the page from
    /// loading), then the oldest of those still young. With none, the newcomer is turned away.
    public func admit(peer: String, network: String, server: WebConnections, turn: UInt64, now: UInt64) -> Bool {
        let requests = server.connections.values.filter { !$0.isSocket }
        guard requests.count >= Self.maximumRequests else { return true }
        let candidates = requests.filter { $0.opened < turn }
        func settled(_ c: WebConnections.Connection) -> Bool { now - c.acceptedAt >= Self.youngNanoseconds }
        let room =
            Self.oldest(candidates.filter(\.closesWhenSent)) ?? Self.oldest(candidates.filter(settled))
            ?? Self.oldest(candidates)
        refuse(.tooManyConnections)
        guard let room else { return false }
        server.close(room.fd)
        return true
    }

    /// A page coming (a request with the token, about to be upgraded) with ``maximumPages`` served
    /// closes the oldest page, one that is closing first: a browser's page reconnects by itself, so
    /// pages another program holds open cannot keep a browser out.
    func makeRoomForPage(except newcomer: WebConnections.Connection) {
        guard server.sockets >= Self.maximumPages else { return }
        let pages = server.connections.values.filter { $0.isSocket && $0 !== newcomer }
        guard let room = Self.oldest(pages.filter(\.closesWhenSent)) ?? Self.oldest(pages) else { return }
        refuse(.tooManyConnections)
        server.close(room.fd)
    }

    static func oldest(_ cs: [WebConnections.Connection]) -> WebConnections.Connection? {
        cs.min { $0.opened < $1.opened }
    }

    public func refused(_ reason: WebConnections.Refusal) {
        switch reason {
        case .notTLS, .tlsRefused, .malformed: refuse(.malformed)
        case .tooSlow, .unauthenticated: refuse(.tooSlow)
        case .tooManyFrames: refuse(.tooManyFrames)
        case .unread: refuse(.unread)
        }
    }

    func refuse(_ reason: WebAccessPolicy.Refusal) { refusals.add(reason) }

    public func route(_ head: HTTPRequestHead, on c: WebConnections.Connection) throws {
        let host = head.field("host")
        let origin = head.field("origin")
        let token = head.query("token")
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            if let r = policy.check(host: host, origin: origin, token: token, stream: false, arrivedAt: c.arrivedAt) {
                return refused(r, c)
            }
            server.respond(c, HTTPResponse(status: 200, reason: "OK", fields: Self.pageFields, body: page))
        case ("GET", "/stream"):
            if let r = policy.check(host: host, origin: origin, token: token, stream: true, arrivedAt: c.arrivedAt) {
                return refused(r, c)
            }
            guard let switching = WebSocketFrame.handshakeResponse(to: head) else {
                refuse(.malformed)
                return server.respond(c, .upgradeExpected)
            }
            makeRoomForPage(except: c)
            server.upgrade(c, switching: switching, authenticated: true)
            // The state as it is now, at once (the other pages keep their schedule).
            server.write(c, message(markPushed: false))
        case ("POST", "/recenter"):
            if let r = policy.checkRecenter(
                host: host, origin: origin, token: head.field("x-mouse3d-token").map { Substring($0) },
                offered: onRecenter != nil,
                arrivedAt: c.arrivedAt)
            {
                return refused(r, c)
            }
            // A person presses recenter a few times a second at most; a script holding the token
            // could press it thousands of times (each one logged): those are refused.
            guard recenterBudget.take(now: MonotonicClock.nanoseconds()) else {
                refuse(.tooManyRecentres)
                return server.respond(c, .text(429, "Too Many Requests", "refused: too-many-recentres\n"))
            }
            try onRecenter?()
            recentres += 1
            server.respond(c, HTTPResponse(status: 204, reason: "No Content"))
        default:
            if let r = policy.check(host: host, origin: origin, token: token, stream: false, arrivedAt: c.arrivedAt) {
                return refused(r, c)
            }
            server.respond(c, .text(404, "Not Found", "not found\n"))
        }
    }

    static let pageFields = HTTPResponse.pageFields(
        contentSecurityPolicy:
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
    )

    func refused(_ reason: WebAccessPolicy.Refusal, _ c: WebConnections.Connection) {
        refuse(reason)
        server.respond(
            c,
            reason == .foreignHost
                ? .text(421, "Misdirected Request", "refused: \(reason.rawValue)\n")
                : .text(403, "Forbidden", "refused: \(reason.rawValue)\n"))
    }

    // MARK: Timing

    /// The next push, when something changed and a page is open, and the next sweep of silent streams.
    public var nextDeadline: UInt64? {
        var earliest: UInt64? = server.sockets > 0 && version != pushedVersion ? lastPush + Self.pushInterval : nil
        if !streams.isEmpty { earliest = min(earliest ?? .max, lastStreamSweep + 1_000_000_000) }
        return earliest
    }

    public func tick(now: UInt64) throws {
        forgetSilentStreams(now: now)
        if server.sockets > 0 && version != pushedVersion && now >= lastPush + Self.pushInterval {
            push(now: now)
        }
    }

    /// Sends the latest state to every page that has nothing pending.
    func push(now: UInt64) {
        // On schedule, so slow sources still get 60 a second; after a pause it starts again from now.
        lastPush = now - lastPush > 2 * Self.pushInterval ? now : lastPush + Self.pushInterval
        let message = message(markPushed: true)
        for c in server.connections.values where c.isSocket && !c.closesWhenSent {
            server.write(c, message, force: false)
        }
    }

    /// The latest state as one framed WebSocket text message.
    /// The source has ended (a replay is over): every page is told at once, before the process stops
    /// and the connections close, so that a page says so instead of "reconnecting".
    public func sourceEnded() {
        ended = true
        version &+= 1
        let update = message(markPushed: true)
        for c in server.connections.values where c.isSocket && c.authenticated { server.write(c, update) }
    }

    func message(markPushed: Bool) -> [UInt8] {
        if markPushed { pushedVersion = version }
        let text = ViewJSON.update(order.compactMap { streams[$0] }, refusals: refusals.counts, ended: ended)
        return WebSocketFrame.encode(.text, Array(text.utf8))
    }
}
