import Mouse3DCore
import Mouse3DLinux

/// A phone's browser as the motion source: an HTTPS server on the event loop serves one page, whose
/// `devicemotion` readings and touch areas come back over a WebSocket on the same port.
///
/// A phone page is an input injector, so it is held to a sealed stream's standard: nothing it sends
/// reaches the pipeline before the socket's first message is the token (128 bits, in the URL's
/// fragment: never sent in a request, compared in constant time); `Host` and `Origin` must be the
/// server's own (against DNS rebinding and other sites' pages); one phone at a time (a phone that
/// reconnects replaces the connection it left); messages of at most 4 KiB, readings at most
/// ``maximumSamplesPerSecond`` (beyond: refused and counted), at most ``maximumConnections``
/// connections, 64 KiB read per connection per wake-up, and every refusal counted by reason. Held
/// buttons are released when the phone goes.
public final class PhoneSource: MotionSampleSource {
    /// The port when none is given.
    public static let defaultPort: UInt16 = 24933
    /// Connections at once (the phone's page load, its socket, and a few reconnecting).
    public static let maximumConnections = 16
    /// Bytes read from one connection per wake-up.
    public static let readBudget = 65536
    /// How long a connection may take to finish its TLS handshake and request (and a socket to send the token).
    public static let headTimeoutNanoseconds: UInt64 = 10_000_000_000
    /// The most readings a second (Safari gives 60–100, Chromium 60): more is refused.
    public static let maximumSamplesPerSecond = 1000.0
    /// Held longer than this without a message, a phone is gone (its buttons are released).
    public static let silenceNanoseconds: UInt64 = 1_000_000_000

    /// The `BTN_*` codes the page's touch areas arrive as: left click, right click, recenter, hold to move.
    public static let leftCode: Int32 = 0x2C0, rightCode: Int32 = 0x2C1, recenterCode: Int32 = 0x2C2,
        holdToMoveCode: Int32 = 0x2C3

    /// A refusal, counted by reason.
    public enum Refusal: String, Sendable, CaseIterable {
        case notTLS = "not-tls"
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
        case tooManyFromAddress = "too-many-from-address"
    }

    /// Connections one address may hold before its socket has sent the token.
    public static let maximumUnauthenticatedPerAddress = 4
    /// Reads per connection per wake-up.
    static let readsPerWakeUp = 4

    public let address: String
    public private(set) var port: UInt16
    public let token: String
    /// The certificate's SHA-256 fingerprint, for the user to compare with the browser's warning.
    public let fingerprint: String
    public private(set) var refusals: [Refusal: Int] = [:]
    /// Readings taken, and messages of them.
    public private(set) var samples = 0, messages = 0
    /// What happened that the user should hear of (a phone connected or left), said by the caller.
    public var report: (String) -> Void = { _ in }

    let listener: TCPListener
    let context: TLSServerContext
    let policy: ViewAccessPolicy
    let page: [UInt8]
    var connections: [Int32: Connection] = [:]
    var nextOpened: UInt64 = 0
    var phone: Int32?
    var mapper = PhoneSampleMapper()
    var pressed = PhoneButtons()
    var sampleBudget: TokenBucket
    var chunk = [UInt8](repeating: 0, count: 16384)
    weak var loop: EventLoop?
    var sink: MotionSampleSink?
    var registrations: [EventLoop.Registration] = []

    /// Listens on `address` and `port` (0: any free one) with `certificate`, for a page that sends `token`.
    public init(address: String, port: UInt16, token: String, certificate: SelfSignedCertificate) throws {
        do {
            listener = try TCPListener.listening(host: address, port: port)
        } catch {
            throw PhoneSourceError(message: "cannot serve the phone page on \(address):\(port): \(error)")
        }
        context = try TLSServerContext(certificate: certificate)
        fingerprint = try certificate.fingerprint()
        self.address = address
        self.port = listener.localAddress.port
        self.token = token
        policy = ViewAccessPolicy(
            address: address, port: self.port, token: token, hostName: FileSystem.hostName, scheme: "https")
        page = Array(PhonePage.html.utf8)
        sampleBudget = TokenBucket(
            ratePerSecond: Self.maximumSamplesPerSecond, burst: 2 * Self.maximumSamplesPerSecond, now: 0)
    }

    /// The host a phone uses: the address given, or on every address the machine's name on the LAN.
    public var host: String {
        policy.isWildcard
            ? FileSystem.hostName.lowercased() + ".local" : address.contains(":") ? "[\(address)]" : address
    }

    /// The page's URL, the token in its fragment (never sent to the server in a request).
    public var url: String { "https://\(host):\(port)/#\(token)" }

    public var summary: String { "phone at \(url)" }

    public var closingSummary: [String] {
        [
            "phone: \(samples) readings in \(messages) messages"
                + (latencies.count == 0 ? "" : "; reading → fusion \(latencies.summary)")
        ]
            + (refusalSummary.map { [$0] } ?? [])
    }

    /// The waits of the last 4096 readings from their time to their fusion.
    var latencies = RecentDurations(capacity: 4096)

    /// One line on what was refused, or nil if nothing was.
    public var refusalSummary: String? {
        let parts = Refusal.allCases.compactMap { r in refusals[r].map { "\(r.rawValue) \($0)" } }
        return parts.isEmpty ? nil : "phone: refused " + parts.joined(separator: ", ")
    }

    public func start(on loop: EventLoop, sink: MotionSampleSink) {
        self.loop = loop
        self.sink = sink
        registrations.append(loop.watch(listener.descriptor) { [unowned self] in try acceptAll() })
        registrations.append(
            loop.timer(deadline: { [unowned self] in nextDeadline }) { [unowned self] now in try tick(now: now) })
    }

    /// Stops serving: every connection closed, held buttons released.
    public func stop() throws {
        if let loop {
            loop.cancel(&registrations)
            for c in connections.values { if let r = c.registration { loop.cancel(r) } }
        }
        connections.removeAll()
        try releaseButtons()
    }

    func refuse(_ reason: Refusal) { refusals[reason, default: 0] += 1 }

    // MARK: Connections

    final class Connection {
        let tls: TLSConnection
        var registration: EventLoop.Registration?
        var inbound: [UInt8] = []
        var consumed = 0
        var outbound = OutboundQueue()
        var deadline: UInt64
        var opened: UInt64 = 0
        var arrivedAt: String?
        var isSocket = false, authenticated = false, closesWhenSent = false
        var lastMessage: UInt64 = 0
        /// The peer's address without its port (connections are limited per address).
        var peer = ""
        /// How much of `inbound` was looked through for the end of the head.
        var scanned = 0
        /// Control frames the socket may still send (pings; the page sends none).
        var frames = TokenBucket(ratePerSecond: 4, burst: 16, now: 0)

        init(tls: TLSConnection, deadline: UInt64) {
            self.tls = tls
            self.deadline = deadline
        }

        var pending: Bool { outbound.isPending }
    }

    func acceptAll() throws {
        let firstThisTurn = nextOpened
        for _ in 0..<16 {
            guard let (stream, from) = try listener.accept() else { return }
            let peer = from.withPort(0).description
            // One address holds at most a few connections that have not shown the token (a flood of
            // connects from one host evicts its own, not the phone's page load), then the whole
            // table is bounded: the address holding the most unauthenticated ones gives up its
            // oldest, never the phone and never one accepted this turn (it had no chance yet).
            let waiting = connections.filter { !$0.value.authenticated && $0.value.opened < firstThisTurn }
            let own = waiting.filter { $0.value.peer == peer }
            if own.count >= Self.maximumUnauthenticatedPerAddress,
                let oldest = own.min(by: { $0.value.opened < $1.value.opened })?.key
            {
                refuse(.tooManyFromAddress)
                close(oldest)
            } else if connections.count >= Self.maximumConnections {
                refuse(.tooManyConnections)
                let counts = Dictionary(grouping: waiting.values, by: \.peer).mapValues(\.count)
                guard let busiest = counts.max(by: { $0.value < $1.value })?.key,
                    let oldest = waiting.filter({ $0.value.peer == busiest }).min(by: {
                        $0.value.opened < $1.value.opened
                    })?.key
                else { continue }  // closed as `stream` goes
                close(oldest)
            }
            let fd = stream.descriptor.rawValue
            let arrivedAt = policy.isWildcard ? stream.localAddress()?.hostText : nil
            let c = Connection(
                tls: try TLSConnection(stream: stream, context: context),
                deadline: MonotonicClock.nanoseconds() + Self.headTimeoutNanoseconds)
            c.arrivedAt = arrivedAt
            c.peer = peer
            c.opened = nextOpened
            nextOpened += 1
            connections[fd] = c
            c.registration = loop?.watch(stream.descriptor) { [unowned self] in try readable(fd) }
            try readable(fd)  // the ClientHello is often there already
        }
    }

    func close(_ fd: Int32) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        if let r = c.registration { loop?.cancel(r) }
        if phone == fd {
            phone = nil
            try? releaseButtons()
            report("phone disconnected")
        }
    }

    func readable(_ fd: Int32) throws {
        guard let c = connections[fd] else { return }
        if !c.tls.isEstablished {
            switch c.tls.handshake() {
            case .inProgress: return
            case .failed:
                refuse(.notTLS)
                return close(fd)
            case .done: break
            }
        }
        // What OpenSSL holds decrypted beyond the budget is read on the next tick.
        let open = try TCPStream.readWithinBudget(
            into: &chunk, budget: Self.readBudget, reads: Self.readsPerWakeUp, read: { c.tls.read(into: $0) }
        ) { bytes in
            if c.closesWhenSent { return true }  // a response is on its way; what else comes is dropped
            c.inbound += bytes
            if c.isSocket { try readFrames(c, fd) } else { try readHead(c, fd) }
            return connections[fd] != nil
        }
        if !open { close(fd) }
    }

    func readHead(_ c: Connection, _ fd: Int32) throws {
        switch HTTPRequestHead.take(from: &c.inbound, scanned: &c.scanned) {
        case .incomplete: return
        case .invalid:
            refuse(.malformed)
            respond(c, fd, .badRequest)
        case .head(let head): try route(head, c, fd)
        }
    }

    static let pageFields =
        HTTPResponse.pageFields(
            contentSecurityPolicy:
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'"
        ) + [("Strict-Transport-Security", "max-age=0")]

    func route(_ head: HTTPRequestHead, _ c: Connection, _ fd: Int32) throws {
        let host = head.field("host")
        let origin = head.field("origin")
        guard policy.serves(host: host, arrivedAt: c.arrivedAt) else {
            refuse(.foreignHost)
            return respond(c, fd, .text(421, "Misdirected Request", "refused: foreign-host\n"))
        }
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            respond(c, fd, HTTPResponse(status: 200, reason: "OK", fields: Self.pageFields, body: page))
        case ("GET", "/stream"):
            // A browser always sends its page's Origin on a WebSocket; no Origin (a script) is let
            // through to the token, which it must have.
            if let origin, !policy.isOwn(origin: origin, arrivedAt: c.arrivedAt) {
                refuse(.foreignOrigin)
                return respond(c, fd, .text(403, "Forbidden", "refused: foreign-origin\n"))
            }
            guard let switching = WebSocketFrame.handshakeResponse(to: head) else {
                refuse(.malformed)
                return respond(c, fd, .upgradeExpected)
            }
            c.isSocket = true
            c.deadline = MonotonicClock.nanoseconds() + Self.headTimeoutNanoseconds  // for the token
            write(c, fd, switching)
            if c.inbound.count > c.consumed { try readFrames(c, fd) }
        default:
            respond(c, fd, .text(404, "Not Found", "not found\n"))
        }
    }

    func respond(_ c: Connection, _ fd: Int32, _ response: HTTPResponse) {
        c.closesWhenSent = true
        c.inbound = []
        write(c, fd, response.encoded)
    }

    func closeSocket(_ c: Connection, _ fd: Int32, code: UInt16) {
        c.closesWhenSent = true
        c.inbound = []
        c.consumed = 0
        write(c, fd, WebSocketFrame.close(code))
    }

    func readFrames(_ c: Connection, _ fd: Int32) throws {
        defer {
            if c.consumed > 0 {
                c.inbound.removeSubrange(0..<min(c.consumed, c.inbound.count))
                c.consumed = 0
            }
        }
        // Nothing more is taken once the connection is closing or gone (a frame after a close must
        // not press a button nobody will release).
        while !c.closesWhenSent && connections[fd] === c {
            let outcome = c.inbound.withUnsafeBytes { WebSocketFrame.decodeClientHeader($0, at: c.consumed) }
            guard case .header(let h) = outcome else {
                if case .invalid = outcome {
                    refuse(.malformed)
                    closeSocket(c, fd, code: 1002)
                }
                return
            }
            c.consumed = h.end
            let payload = c.inbound.withUnsafeBytes { WebSocketFrame.unmask(h, $0) }
            // Before the token, the token only: anything else (a ping included) closes the socket.
            if !c.authenticated && h.opcode != .text && h.opcode != .close {
                refuse(.noToken)
                return closeSocket(c, fd, code: 1008)
            }
            if h.opcode.isControl && h.opcode != .close {
                guard c.frames.take(now: MonotonicClock.nanoseconds()) else {
                    refuse(.tooManyFrames)
                    return closeSocket(c, fd, code: 1008)
                }
            }
            switch h.opcode {
            case .close: return closeSocket(c, fd, code: 1000)
            case .ping: write(c, fd, WebSocketFrame.encode(.pong, payload))
            case .pong: break
            case .text where !c.authenticated:
                guard h.final, !payload.isEmpty else {
                    refuse(.noToken)
                    return closeSocket(c, fd, code: 1008)
                }
                guard ViewAccessPolicy.equal(String(decoding: payload, as: UTF8.self), token) else {
                    refuse(.badToken)
                    return closeSocket(c, fd, code: 1008)
                }
                c.authenticated = true
                c.lastMessage = MonotonicClock.nanoseconds()
                if let previous = phone, previous != fd, let old = connections[previous] {
                    refuse(.replaced)
                    closeSocket(old, previous, code: 1000)
                    close(previous)
                }
                phone = fd
                report("phone connected")
            case .binary where c.authenticated && h.final:
                c.lastMessage = MonotonicClock.nanoseconds()
                try take(payload)
            default:
                // Before the token anything else, after it text or fragments: not what the page sends.
                refuse(c.authenticated ? .badMessage : .noToken)
                return closeSocket(c, fd, code: 1008)
            }
        }
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
            samples += readings.count
            let mapped = mapper.samples(readings, arrival: Int64(now))
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
        }
    }

    func setButtons(_ state: PhoneButtons) throws {
        let codes: [(PhoneButtons, Int32)] = [
            (.left, Self.leftCode), (.right, Self.rightCode), (.recenter, Self.recenterCode),
            (.holdToMove, Self.holdToMoveCode)
        ]
        for (button, code) in codes where state.contains(button) != pressed.contains(button) {
            try sink?.button(code, state.contains(button))
        }
        pressed = state
    }

    func releaseButtons() throws { try setButtons([]) }

    func write(_ c: Connection, _ fd: Int32, _ bytes: [UInt8]) {
        guard c.outbound.enqueue(bytes, limit: 262_144) else { return close(fd) }
        flush(c, fd)
    }

    func flush(_ c: Connection, _ fd: Int32) {
        switch c.outbound.drain({ c.tls.write($0) }).0 {
        case .failed: return close(fd)
        case .blocked: return
        case .empty: if c.closesWhenSent { close(fd) }
        }
    }

    // MARK: Timing

    var nextDeadline: UInt64? {
        var earliest: UInt64?
        let retry =
            connections.values.contains { $0.pending || $0.tls.pendingBytes > 0 }
            ? MonotonicClock.nanoseconds() + 5_000_000 : 0
        for c in connections.values {
            // An authenticated phone needs a deadline only while a button is held (to release it).
            var d = c.authenticated ? (pressed.isEmpty ? .max : c.lastMessage + Self.silenceNanoseconds) : c.deadline
            if retry > 0 && (c.pending || c.tls.pendingBytes > 0) { d = min(d, retry) }
            earliest = min(earliest ?? d, d)
        }
        return earliest == .max ? nil : earliest
    }

    func tick(now: UInt64) throws {
        for (fd, c) in connections {
            if c.pending { flush(c, fd) }
            guard let c = connections[fd] else { continue }
            if c.tls.pendingBytes > 0 { try readable(fd) }
            guard let c = connections[fd] else { continue }
            if c.authenticated {
                // A phone that went quiet (screen off, network lost): its buttons are released.
                if now >= c.lastMessage + Self.silenceNanoseconds && !pressed.isEmpty { try releaseButtons() }
            } else if now >= c.deadline {
                refuse(c.isSocket ? .noToken : .tooSlow)
                close(fd)
            }
        }
    }
}
