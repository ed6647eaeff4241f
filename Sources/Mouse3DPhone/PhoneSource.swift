import Mouse3DCore
import Mouse3DLinux

/// A phone's browser as the motion source: an HTTPS server on the event loop serves one page, whose
/// `devicemotion` readings and touch areas come back over a WebSocket on the same port.
///
/// A phone page is an input injector, so it is held to a sealed stream's standard: nothing it sends
/// reaches the pipeline before the socket's first message is a credential (``PhoneCredentials``:
/// the URL's token, 128 bits in the fragment, never sent in a request, which admits one phone once
/// and hands it a secret of its own; compared in constant time); `Host` and `Origin` must be the
/// server's own (against DNS rebinding and other sites' pages); one phone at a time (while it is
/// heard from, another is refused and the terminal says so; a phone whose socket went quiet is
/// replaced when it reconnects); admissions a few a minute, presses a few a second; messages of
/// at most 4 KiB, readings at most ``maximumSamplesPerSecond`` (beyond: refused and counted), at
/// most ``maximumConnections`` connections (the least advanced of the busiest network turned away
/// first), 64 KiB read per connection per wake-up, TLS handshakes within the loop's time budget, and
/// every refusal counted by reason. Held buttons are released when the phone goes.
public final class PhoneSource: MotionSampleSource, WebConnectionsDelegate {
    /// The port when none is given.
    public static let defaultPort: UInt16 = 24933
    /// Connections at once: the phone's page load, its socket and a few reconnecting, and room for
    /// strangers' connections to be turned away by how far they got (see ``admit(peer:network:server:turn:now:)``).
    public static let maximumConnections = 64
    /// How long a connection may take to finish its TLS handshake and request (and a socket to send the token).
    public static let headTimeoutNanoseconds: UInt64 = 10_000_000_000
    /// The most readings a second (Safari gives 60–100, Chromium 60): more is refused.
    public static let maximumSamplesPerSecond = 1000.0
    /// Held longer than this without a message, a phone is gone (its buttons are released).
    public static let silenceNanoseconds: UInt64 = 1_000_000_000
    /// A phone connected this long with no reading is told of on the terminal.
    public static let noReadingsNanoseconds: UInt64 = 5_000_000_000
    /// A reading older than this when it arrives is stale motion (a page that kept what it read while
    /// its connection was down): dropped and counted, never fused.
    public static let staleNanoseconds: UInt64 = 500_000_000

    /// The `BTN_*` codes the page's touch areas arrive as: left click, right click, recenter, hold to move.
    public static let leftCode: Int32 = 0x2C0, rightCode: Int32 = 0x2C1, recenterCode: Int32 = 0x2C2,
        holdToMoveCode: Int32 = 0x2C3

    /// A refusal, counted by reason.
    public enum Refusal: String, Sendable, CaseIterable {
        case notTLS = "not-tls"
        /// TLS this page does not offer (no group, signature or suite in common).
        case tlsRefused = "tls-refused"
        case foreignHost = "foreign-host"
        case foreignOrigin = "foreign-origin"
        case noToken = "no-token"
        case badToken = "bad-token"
        case tooManyConnections = "too-many-connections"
        case malformed = "malformed"
        case tooSlow = "too-slow"
        case tooManySamples = "too-many-samples"
        case badMessage = "bad-message"
        case replaced = "replaced"
        case tooManyFrames = "too-many-frames"
        case tooManyFromNetwork = "too-many-from-network"
        case tooManyFromAddress = "too-many-from-address"
        case unread = "unread"
        /// The URL's token again, after it admitted its phone.
        case spentToken = "spent-token"
        /// A second phone while the first is heard from.
        case phoneInUse = "phone-in-use"
        /// Admissions past a few a minute.
        case tooManyAdmissions = "too-many-admissions"
        /// Presses past a few a second (the presses are dropped, releases always pass).
        case tooManyPresses = "too-many-presses"
    }

    /// Connections one network (a /24, a /64) may hold before their sockets have authenticated: half
    /// the table, so that one network cannot take all of it. (The phone's own network may be the
    /// attacker's too: there, what keeps the phone in is that the connection that stood still
    /// longest goes first.)
    public static let maximumUnauthenticatedPerNetwork = 32
    /// Connections one address may hold before their sockets have authenticated (a page load and its
    /// socket, and a reconnection).
    public static let maximumUnauthenticatedPerAddress = 4
    /// A phone heard from this recently is in use: another one is refused.
    public static let inUseNanoseconds: UInt64 = 2_000_000_000
    /// Admissions of a phone (new or known): a burst, then this many a second (a page reconnects
    /// every half second at most; a key holder fighting the phone is refused as in use anyway).
    static let admissionBurst = 10.0, admissionsPerSecond = 1.0
    /// Presses of the page's buttons (a message that presses any): a burst, then this many a second.
    static let pressBurst = 10.0, pressesPerSecond = 10.0
    /// The close codes a refused page is told why with (RFC 6455 §7.4.2: 4000–4999 are the
    /// application's); the page says each in words.
    public enum CloseCode: UInt16, Sendable {
        /// A credential this run does not know (an earlier run's, a mistyped one, a forgotten phone's).
        case unknownCode = 4001
        /// The URL's token after it admitted its phone.
        case spentCode = 4002
        /// Another phone is in use.
        case inUse = 4003
        /// Too many admissions: try again later.
        case tooMany = 4008
    }
    /// The connections' bounds: control frames count (the page sends none), readings do not; a
    /// socket has 2 s to show its credential (the page sends it the moment the socket opens), so a
    /// socket held open without one soon gives its place back.
    public static var limits: WebConnections.Limits {
        var limits = WebConnections.Limits(
            maximumConnections: maximumConnections, headTimeoutNanoseconds: headTimeoutNanoseconds)
        limits.everyFrame = false
        limits.credentialNanoseconds = 2_000_000_000
        return limits
    }

    public let address: String
    public private(set) var port: UInt16
    /// The URL's token (see ``PhoneCredentials``).
    public var token: String { credentials.urlToken }
    /// Who may connect.
    public private(set) var credentials: PhoneCredentials
    /// Stores the remembered phones' secrets (`--phone-remember`), called when a new one is admitted.
    public var remember: ([String]) throws -> Void = { _ in }
    /// The certificate's SHA-256 fingerprint, for the user to compare with the browser's warning.
    public let fingerprint: String
    public private(set) var refusals = RefusalTally<Refusal>()
    /// What browsers did that ended connections, not refused (``WebConnections/Ordinary``).
    public private(set) var everyday: [WebConnections.Ordinary: Int] = [:]
    /// Readings taken, and messages of them; presses of the page's buttons handed on.
    public private(set) var samples = 0, messages = 0, pressesTaken = 0
    /// What happened that the user should hear of (a phone connected or left), said by the caller.
    public var report: (String) -> Void = { _ in }

    let server: WebConnections
    let policy: WebAccessPolicy
    let page: [UInt8]
    /// The authenticated phone's connection, and when it last sent a message.
    var phone: Int32?
    var lastMessage: UInt64 = 0
    /// When the phone connected, the readings taken by then, and whether their absence was said.
    var connectedAt: UInt64 = 0, samplesAtConnect = 0, toldNoReadings = true
    /// Readings dropped as stale.
    public private(set) var staleReadings = 0
    var admissions = TokenBucket(ratePerSecond: admissionsPerSecond, burst: admissionBurst, now: 0)
    var presses = TokenBucket(ratePerSecond: pressesPerSecond, burst: pressBurst, now: 0)
    var lines = RepeatedLines()
    /// The key handed to a new phone's connection, until its page says it kept it.
    var issued: [Int32: String] = [:]
    var mapper = PhoneSampleMapper()

    /// How the screen's axes become mouse3d's frame.
    public var frameAxes: GamepadMotionAxes { mapper.axes }

    /// Turns the screen's axes by a stored setup (`calibrate --axes`) instead of the page's hold.
    /// Before ``start(on:sink:)``.
    public func use(_ setup: AxesSetup) { mapper.axes = GamepadMotionAxes(setup) }
    var pressed = PhoneButtons()
    var sampleBudget: TokenBucket
    var sink: MotionSampleSink?

    /// The machine's addresses a phone can open the page at (on every address: its LAN addresses, the
    /// default route's first; else the address given).
    public let pageAddresses: [String]

    /// Listens on `address` and `port` (0: any free one) with `certificate`, for pages that show
    /// `credentials`; `lanAddresses`: the machine's addresses on its networks (URL hosts, the default
    /// route's first), offered on every address.
    public init(
        address: String, port: UInt16, credentials: PhoneCredentials, certificate: SelfSignedCertificate,
        lanAddresses: [String] = []
    ) throws {
        let listener: TCPListener
        do {
            listener = try TCPListener.listening(host: address, port: port)
            try listener.deferAccept(seconds: 5)
        } catch {
            throw PhoneSourceError(message: "cannot serve the phone page on \(address):\(port): \(error)")
        }
        let context = try TLSServerContext(certificate: certificate)
        fingerprint = try certificate.fingerprint()
        self.address = address
        self.port = listener.localAddress.port
        self.credentials = credentials
        let wildcard = address == "0.0.0.0" || address == "::"
        pageAddresses = wildcard ? lanAddresses : [address.contains(":") ? "[\(address)]" : address]
        policy = WebAccessPolicy(
            address: address, port: self.port, token: credentials.urlToken, hostName: FileSystem.hostName,
            scheme: "https")
        server = WebConnections(listener: listener, limits: Self.limits, recordsArrival: policy.isWildcard) {
            try TLSOrPlain(stream: $0, context: context)
        }
        page = Array(PhonePage.html.utf8)
        sampleBudget = TokenBucket(
            ratePerSecond: Self.maximumSamplesPerSecond, burst: 2 * Self.maximumSamplesPerSecond, now: 0)
        server.delegate = self
    }

    /// The machine's name on the LAN (`HOST.local`, Avahi's), when serving on every address.
    public var nameHost: String? { policy.isWildcard ? FileSystem.hostName.lowercased() + ".local" : nil }

    /// The page's URLs, the token in the fragment (never sent to the server in a request): one per
    /// address, the first the one to scan; then, on every address, `HOST.local`'s (which needs mDNS,
    /// missing on many Android versions and networks). Never empty.
    public var urls: [String] {
        (pageAddresses + (nameHost.map { [$0] } ?? [])).map { "https://\($0):\(port)/#\(token)" }
    }

    /// The URL to scan: the first address's (or `HOST.local`'s when the machine has no address on a
    /// network).
    public var url: String { urls[0] }

    public var summary: String { "phone on port \(port)" }

    public var closingSummary: [String] {
        [
            "phone: \(samples) readings in \(messages) messages, \(pressesTaken) presses"
                + (staleReadings > 0 ? ", \(staleReadings) stale ones dropped" : "")
                + (latencies.count == 0 ? "" : "; reading → fusion \(latencies.summary)")
        ]
            + (server.handshakeSummary.map { ["phone: \($0)"] } ?? []) + (everydaySummary.map { [$0] } ?? [])
            + (refusalSummary.map { [$0] } ?? [])
    }

    /// The waits of the last 4096 readings from their time to their fusion.
    var latencies = RecentDurations(capacity: 4096)

    /// One line on what browsers did that ended connections (not refusals), or nil.
    public var everydaySummary: String? {
        let left = everyday[.leftHandshake] ?? 0
        let idle = everyday[.idle] ?? 0
        guard left + idle > 0 else { return nil }
        return
            "phone: browsers left \(left) TLS handshakes (a certificate warning, a spare connection) and \(idle) idle connections"
    }

    /// One line on what was refused, or nil if nothing was.
    public var refusalSummary: String? {
        refusals.listing.map { "phone: refused " + $0 }
    }

    public func start(on loop: EventLoop, sink: MotionSampleSink) {
        self.sink = sink
        server.attach(to: loop)
    }

    /// Stops serving: every connection closed, held buttons released.
    public func stop() throws {
        server.stop()
        phone = nil
        try releaseButtons()
    }

    func refuse(_ reason: Refusal) { refusals.add(reason) }

    // MARK: Connections

    /// Room for a newcomer among the connections that have not authenticated (never the phone's,
    /// never one accepted this turn: it had no chance yet). One address holds at most
    /// ``maximumUnauthenticatedPerAddress`` of them, one network (a /24 or /64: one host can take
    /// many addresses in it) half the table, and the table is bounded; past a bound, one of the
    /// address's, the network's or the whole table's is turned away. Which one: first any that has
    /// not sent a whole ClientHello (a byte and then nothing costs a flooder nothing, and a browser
    /// sends its hello at once), the one that stood still longest; then, from the address holding
    /// the most, the one that stood still longest (``WebConnections/Connection/progressedAt``):
    /// sockets held half-way by someone without a code go before a phone a round trip from its next
    /// step. Bare connects do not get here for their first seconds (`TCP_DEFER_ACCEPT`).
    public func admit(peer: String, network: String, server: WebConnections, turn: UInt64, now: UInt64) -> Bool {
        let waiting = server.connections.values.filter { !$0.authenticated && $0.opened < turn }
        func victim(_ cs: [WebConnections.Connection]) -> WebConnections.Connection? {
            func stillest(_ cs: [WebConnections.Connection]) -> WebConnections.Connection? {
                cs.min { ($0.progressedAt, $0.opened) < ($1.progressedAt, $1.opened) }
            }
            if let silent = stillest(cs.filter { !$0.helloReceived }) { return silent }
            let counts = Dictionary(grouping: cs, by: \.peer).mapValues(\.count)
            guard let busiest = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key else { return nil }
            return stillest(cs.filter { $0.peer == busiest })
        }
        let own = waiting.filter { $0.peer == peer }
        let ownNetwork = waiting.filter { $0.network == network }
        if own.count >= Self.maximumUnauthenticatedPerAddress, let v = victim(own) {
            refuse(.tooManyFromAddress)
            server.close(v.fd)
        } else if ownNetwork.count >= Self.maximumUnauthenticatedPerNetwork, let v = victim(ownNetwork) {
            refuse(.tooManyFromNetwork)
            server.close(v.fd)
        } else if server.connections.count >= Self.maximumConnections {
            refuse(.tooManyConnections)
            guard let v = victim(waiting) else { return false }
            server.close(v.fd)
        }
        return true
    }

    public func refused(_ reason: WebConnections.Refusal) {
        switch reason {
        case .notTLS: refuse(.notTLS)
        case .tlsRefused: refuse(.tlsRefused)
        case .malformed: refuse(.malformed)
        case .tooSlow: refuse(.tooSlow)
        case .unauthenticated: refuse(.noToken)
        case .tooManyFrames: refuse(.tooManyFrames)
        case .unread: refuse(.unread)
        }
    }

    public func ordinary(_ event: WebConnections.Ordinary) { everyday[event, default: 0] += 1 }

    public func closed(_ connection: WebConnections.Connection) {
        issued[connection.fd] = nil
        guard phone == connection.fd else { return }
        phone = nil
        try? releaseButtons()
        report("phone disconnected")
    }

    static let pageFields =
        HTTPResponse.pageFields(
            contentSecurityPolicy:
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'"
        ) + [("Strict-Transport-Security", "max-age=0")]

    public func route(_ head: HTTPRequestHead, on c: WebConnections.Connection) throws {
        let host = head.field("host")
        let origin = head.field("origin")
        guard policy.serves(host: host, arrivedAt: c.arrivedAt) else {
            refuse(.foreignHost)
            return server.respond(c, .text(421, "Misdirected Request", "refused: foreign-host\n"))
        }
        // `http://` typed for `https://`: sent on, to the same host and port. The browser keeps the
        // URL's fragment (the token) across the redirect (RFC 9110 §10.2.2).
        if c.isPlainHTTP, let host {
            return server.respond(
                c,
                HTTPResponse(
                    status: 301, reason: "Moved Permanently",
                    fields: [("Location", "https://\(host)/"), ("Cache-Control", "no-store")],
                    body: Array("This page is at https://\(host)/\n".utf8)))
        }
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            server.respond(c, HTTPResponse(status: 200, reason: "OK", fields: Self.pageFields, body: page))
        case ("GET", "/stream"):
            // A browser always sends its page's Origin on a WebSocket; no Origin (a script) is let
            // through to the token, which it must have.
            if let origin, !policy.isOwn(origin: origin, arrivedAt: c.arrivedAt) {
                refuse(.foreignOrigin)
                return server.respond(c, .text(403, "Forbidden", "refused: foreign-origin\n"))
            }
            guard let switching = WebSocketFrame.handshakeResponse(to: head) else {
                refuse(.malformed)
                return server.respond(c, .upgradeExpected)
            }
            // The token comes as the socket's first message, within the head's time.
            server.upgrade(c, switching: switching, authenticated: false)
        default:
            server.respond(c, .text(404, "Not Found", "not found\n"))
        }
    }

    public func frame(_ h: WebSocketFrame.Header, on c: WebConnections.Connection) throws -> Bool {
        // Before the token, the token only: anything else (a ping included) closes the socket.
        if !c.authenticated && h.opcode != .text && h.opcode != .close {
            refuse(.noToken)
            server.closeSocket(c, code: 1008)
            return true
        }
        switch h.opcode {
        case .close, .ping, .pong: return false
        case .text where !c.authenticated:
            let payload = server.payload(h, of: c)
            guard h.final, !payload.isEmpty else {
                refuse(.noToken)
                server.closeSocket(c, code: 1008)
                return true
            }
            try authenticate(c, presenting: String(decoding: payload, as: UTF8.self))
        case .text where c.authenticated && h.final && server.payload(h, of: c) == Array("kept".utf8):
            // The page kept the key it was handed: the URL's token is spent now.
            if let secret = issued.removeValue(forKey: c.fd) { try confirm(secret) }
        case .binary where c.authenticated && h.final:
            lastMessage = MonotonicClock.nanoseconds()
            try take(server.payload(h, of: c))
        default:
            // Before the token anything else, after it text or fragments: not what the page sends.
            refuse(c.authenticated ? .badMessage : .noToken)
            server.closeSocket(c, code: 1008)
        }
        return true
    }

    /// A socket's credential: a new phone spends the URL's token and is handed its secret; a known
    /// one is let in; anything else is refused with a code the page says in words, and the terminal
    /// hears of it (at most once every few seconds per kind).
    func authenticate(_ c: WebConnections.Connection, presenting presented: String) throws {
        let now = MonotonicClock.nanoseconds()
        let check = credentials.check(presented)
        switch check {
        case .unknown:
            refuse(.badToken)
            say(
                "a phone with a code this run does not know connected from \(c.peerHost): scan the QR code shown now",
                kind: "unknown")
            return server.closeSocket(c, code: CloseCode.unknownCode.rawValue)
        case .spentToken:
            refuse(.spentToken)
            say(
                "a second phone used the code from \(c.peerHost), already taken by the first: refused. If that was your "
                    + "phone, someone else used the code first: restart mouse3d for a new code"
                    + (credentials.remembers ? " and run `mouse3d pair --revoke phone`" : ""), kind: "spent")
            return server.closeSocket(c, code: CloseCode.spentCode.rawValue)
        case .newPhone, .knownPhone: break
        }
        // One phone at a time: while the phone in use is heard from, nobody takes its place (a phone
        // whose connection dropped is quiet within a second or two, and then reconnects).
        if let current = phone, current != c.fd, server.connections[current] != nil,
            now < lastMessage + Self.inUseNanoseconds
        {
            refuse(.phoneInUse)
            say("another phone tried to connect from \(c.peerHost) while this one is in use: refused", kind: "in use")
            return server.closeSocket(c, code: CloseCode.inUse.rawValue)
        }
        guard admissions.take(now: now) else {
            refuse(.tooManyAdmissions)
            say("a phone connected too often from \(c.peerHost): refused for a while", kind: "too often")
            return server.closeSocket(c, code: CloseCode.tooMany.rawValue)
        }
        server.authenticate(c)
        lastMessage = now
        let key: String
        if check == .newPhone {
            key = WebAccessPolicy.makeToken()
            credentials.admitNewPhone(secret: key)
            issued[c.fd] = key
            let reply = #"{"secret":"\#(key)","remember":\#(credentials.remembers)}"#
            server.write(c, WebSocketFrame.encode(.text, Array(reply.utf8)))
            guard server.isOpen(c) else { return }  // the write failed and closed it
        } else {
            key = presented
            try confirm(presented)  // a reconnection with the key: kept, whether or not it said so
        }
        if let previous = phone, previous != c.fd, let old = server.connections[previous] {
            refuse(.replaced)
            server.closeSocket(old, code: 1000)
            server.close(previous)
        }
        phone = c.fd
        (connectedAt, samplesAtConnect, toldNoReadings) = (now, samples, false)
        report(
            "phone connected from \(c.peerHost) (key \(Self.keyName(key))\(credentials.remembers ? ", remembered" : ""))"
        )
    }

    /// A key as the terminal names it: the first 4 hex digits of its SHA-256 (nothing of the key).
    static func keyName(_ key: String) -> String {
        String(
            Digest.sha256.hash(Array(key.utf8)).prefix(2).map { String($0, radix: 16) }.map {
                $0.count == 1 ? "0" + $0 : $0
            }.joined())
    }

    /// A page kept the key it was handed: the URL's token is spent, and with `--phone-remember` the
    /// keys are stored.
    func confirm(_ secret: String) throws {
        let remembered = credentials.confirm(secret)
        if credentials.remembers && !remembered.isEmpty { try remember(remembered) }
    }

    /// Says `line` through ``report``, coalesced: the same `kind` again within a few seconds is counted.
    func say(_ line: String, kind: String? = nil) {
        if let text = lines.say(line, kind: kind, now: MonotonicClock.nanoseconds()) { report(text) }
    }

    /// One message of the authenticated phone.
    func take(_ payload: [UInt8]) throws {
        let decoded = payload.withUnsafeBytes { PhoneMessage.decode($0) }
        guard case .success(let message) = decoded else { return refuse(.badMessage) }
        switch message {
        case .readings(let readings):
            let now = MonotonicClock.nanoseconds()
            // At most maximumSamplesPerSecond: a message that would exceed it is refused whole.
            var allowed = true
            for _ in readings where allowed { allowed = sampleBudget.take(now: now) }
            guard allowed else { return refuse(.tooManySamples) }
            messages += 1
            var mapped = mapper.samples(readings, arrival: Int64(now))
            let oldest = now > Self.staleNanoseconds ? Int64(now - Self.staleNanoseconds) : 0
            let fresh = mapped.filter { $0.timestampNanoseconds >= oldest }
            staleReadings += mapped.count - fresh.count
            mapped = fresh
            samples += mapped.count
            // Each reading's wait from its time (on this clock) to its fusion: the batching, the
            // network's delay beyond the least seen, and this process's.
            for s in mapped {
                let t = UInt64(clamping: max(0, s.timestampNanoseconds))
                // the clock's estimate may put a reading a little after its arrival
                latencies.record(now >= t ? now - t : 0)
            }
            try sink?.samples(mapped)
        case .buttons(let state): try setButtons(state)
        case .platform(let platform): mapper.platform = platform
        case .screen(let angle): mapper.screenAngle = angle
        }
    }

    /// Takes the page's buttons: a message that presses any spends one of a few presses a second (a
    /// person clicks a few times a second; past that its presses are dropped and counted), releases
    /// always pass, so nothing stays held for want of budget.
    func setButtons(_ requested: PhoneButtons) throws {
        var state = requested
        if !state.subtracting(pressed).isEmpty && !presses.take(now: MonotonicClock.nanoseconds()) {
            refuse(.tooManyPresses)
            state.formIntersection(pressed)
        }
        let codes: [(PhoneButtons, Int32)] = [
            (.left, Self.leftCode), (.right, Self.rightCode), (.recenter, Self.recenterCode),
            (.holdToMove, Self.holdToMoveCode)
        ]
        for (button, code) in codes where state.contains(button) != pressed.contains(button) {
            if state.contains(button) { pressesTaken += 1 }
            try sink?.button(code, state.contains(button))
        }
        pressed = state
    }

    func releaseButtons() throws { try setButtons([]) }

    /// The page's touch areas by the names they show.
    public func buttonName(_ code: Int32) -> String? {
        switch code {
        case Self.leftCode: "the phone's left click"
        case Self.rightCode: "the phone's right click"
        case Self.recenterCode: "the phone's recenter button"
        case Self.holdToMoveCode: "the phone's hold to move"
        default: nil
        }
    }

    // MARK: Timing

    /// While a button is held, when the phone counts as gone if it says nothing.
    /// While a button is held, when the phone counts as gone if it says nothing; after it connects,
    /// when to say that no readings came.
    public var nextDeadline: UInt64? {
        let silence = phone != nil && !pressed.isEmpty ? lastMessage + Self.silenceNanoseconds : nil
        let readings = phone != nil && !toldNoReadings ? connectedAt + Self.noReadingsNanoseconds : nil
        return [silence, readings].compactMap { $0 }.min()
    }

    /// A phone that went quiet (screen off, network lost): its buttons are released. A phone that
    /// sent no reading for a while after it connected: the terminal says so, once a connection.
    public func tick(now: UInt64) throws {
        if phone != nil && !pressed.isEmpty && now >= lastMessage + Self.silenceNanoseconds { try releaseButtons() }
        if phone != nil && !toldNoReadings && now >= connectedAt + Self.noReadingsNanoseconds {
            toldNoReadings = true
            if samples == samplesAtConnect {
                say(
                    "phone connected, no motion readings yet: tap Start on the phone and allow motion access (a desktop browser has no motion sensors)"
                )
            }
        }
    }
}
