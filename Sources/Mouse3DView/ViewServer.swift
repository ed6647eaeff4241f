import Mouse3DCore
import Mouse3DLinux

/// The live view: a small HTTP/1.1 and WebSocket server on the process's event loop that serves the
/// page and pushes every stream's latest attitude at most 60 times a second.
///
/// Whoever can reach the port may send anything, so nothing is served without the view's token (see
/// ``ViewAccessPolicy``) and everything it holds or spends is bounded: at most ``maximumConnections``
/// connections (when full, the oldest unfinished request and then the oldest page make room), a
/// request head of 8 KiB that must arrive within ``headTimeoutNanoseconds``, at most
/// ``readBudget`` bytes read from one connection per wake-up (so one flooding connection cannot
/// hold the loop that also carries the stream), client frames of 4 KiB parsed in place and at most
/// a few a second (a page sends none but close and pong; more closes it), one pending pong (the
/// latest ping's, RFC 6455 §5.5.3), at most ``maximumOutbound`` bytes waiting for one connection, and
/// one pending update per page (latest wins; a page is closed once stalled for ``stallNanoseconds``).
/// Every refusal is counted by reason; none is logged per request. Nothing here blocks.
public final class ViewServer {
    /// Streams shown; a new stream past this replaces the one heard from longest ago.
    public static let maximumStreams = 64
    /// A stream not heard from for this long is no longer shown.
    public static let streamSilenceNanoseconds: UInt64 = 60_000_000_000
    /// Connections served at once (pages and requests in progress).
    public static let maximumConnections = 32
    /// Connections accepted per wake-up (the rest wait in the kernel's backlog for the next).
    public static let acceptBudget = 16
    /// Bytes read from one connection per wake-up.
    public static let readBudget = 65536
    /// Bytes held for one connection to read (responses, updates, a pong) before it is closed.
    public static let maximumOutbound = 262_144
    /// Frames a page may send: a burst, then this many a second.
    public static let frameBurst = 16.0, framesPerSecond = 4.0
    /// How long a connection may take to send its request head.
    public static let headTimeoutNanoseconds: UInt64 = 5_000_000_000
    /// How long a new connection is spared when the table is full and pages can make room instead.
    static let youngNanoseconds: UInt64 = 250_000_000
    /// How long a page may leave a message unread before it is closed.
    public static let stallNanoseconds: UInt64 = 10_000_000_000
    /// The fastest the pages are updated, in Hz: a display's rate.
    public static let updateHertz = 60.0
    static let pushInterval = UInt64(1e9 / updateHertz)

    /// Who may use it.
    public let policy: ViewAccessPolicy
    /// The address and port it listens on.
    public let address: String, port: UInt16
    /// The secret every request carries (in the printed URL).
    public var token: String { policy.token }
    /// Recentres the attitude (called on the loop's thread for an accepted recenter request); nil
    /// when the view offers no recenter.
    let onRecenter: (() throws -> Void)?

    let listener: TCPListener
    let page: [UInt8]
    var connections: [Int32: Connection] = [:]
    var streams: [String: ViewStreamState] = [:]
    var order: [String] = []
    var lastStreamSweep: UInt64 = 0
    /// One read buffer for every connection (reads happen one at a time on the loop's thread).
    var chunk = [UInt8](repeating: 0, count: 16384)
    /// Refusals so far, by reason.
    public private(set) var refusals: [ViewAccessPolicy.Refusal: Int] = [:]
    /// Recenter requests carried out.
    public private(set) var recentres = 0
    var version: UInt64 = 0, pushedVersion: UInt64 = 0, lastPush: UInt64 = 0
    var pages = 0
    var nextOpened: UInt64 = 0
    var registrations: [EventLoop.Registration] = []
    weak var loop: EventLoop?

    /// Listens on `address` (numeric IPv4 or IPv6) and `port` (0: any free one, see ``port``),
    /// serving only requests that carry `token`. `onRecenter`, taken only for a loopback view,
    /// offers a recenter button.
    public init(address: String, port: UInt16, token: String, onRecenter: (() throws -> Void)? = nil) throws {
        do {
            listener = try TCPListener.listening(host: address, port: port)
        } catch {
            throw ViewServerError(message: "cannot serve the view on \(address):\(port): \(error)")
        }
        self.address = address
        self.port = listener.localAddress.port
        policy = ViewAccessPolicy(address: address, port: self.port, token: token, hostName: FileSystem.hostName)
        let recenter = ViewAccessPolicy.isLoopback(address) ? onRecenter : nil
        self.onRecenter = recenter
        page = Array(ViewPage.html(token: token, offersRecenter: recenter != nil).utf8)
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
    public func attach(to loop: EventLoop) {
        self.loop = loop
        registrations.append(loop.watch(listener.descriptor) { [unowned self] in try acceptAll() })
        registrations.append(
            loop.timer(deadline: { [unowned self] in nextDeadline }) { [unowned self] now in try tick(now: now) })
    }

    /// Stops serving: every connection is closed.
    public func stop() {
        if let loop {
            loop.cancel(&registrations)
            for c in connections.values { if let r = c.registration { loop.cancel(r) } }
        }
        connections.removeAll()
    }

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
        let parts = ViewAccessPolicy.Refusal.allCases.compactMap { r in refusals[r].map { "\(r.rawValue) \($0)" } }
        return parts.isEmpty ? nil : "view: refused " + parts.joined(separator: ", ")
    }

    // MARK: Connections

    final class Connection {
        let stream: TCPStream
        var registration: EventLoop.Registration?
        /// Bytes received and not yet taken; `consumed` of them are taken (parsed in place).
        var inbound: [UInt8] = []
        var consumed = 0
        var outbound = OutboundQueue()
        /// The latest ping's payload, answered once nothing else is pending.
        var pong: [UInt8]?
        /// Until the head is in (request), or when the pending message was last moved (page).
        var deadline: UInt64
        var isPage = false
        var closesWhenSent = false
        /// The order it was accepted in.
        var opened: UInt64 = 0
        /// When it was accepted (CLOCK_MONOTONIC ns).
        var acceptedAt: UInt64 = 0
        /// The address and port it arrived at, for a view on every address (its Host is then this).
        var arrivedAt: String?
        /// How much of `inbound` was looked through for the end of the head.
        var scanned = 0
        /// Frames the page may still send.
        var frames: TokenBucket

        init(stream: TCPStream, deadline: UInt64, now: UInt64) {
            self.stream = stream
            self.deadline = deadline
            frames = TokenBucket(ratePerSecond: ViewServer.framesPerSecond, burst: ViewServer.frameBurst, now: now)
        }

        var pending: Bool { outbound.isPending }
    }

    func acceptAll() throws {
        let firstThisTurn = nextOpened
        for _ in 0..<Self.acceptBudget {
            guard let (stream, _) = try listener.accept() else { return }
            let now = MonotonicClock.nanoseconds()
            if connections.count >= Self.maximumConnections {
                // Full: a connection accepted before this turn makes room (one accepted now has had
                // no chance to send its head: a flood of connections cannot push out a browser's
                // fresh request): first one that is closing, then the oldest that has been sending
                // its head for a while (connections that send nothing cannot keep the page from
                // loading), then the oldest page (pages held open by another program cannot keep a
                // browser out: its page reconnects by itself), and only then the oldest of those
                // still young (a browser's own connections come in twos and threes: the second
                // must not push out the first, whose request is on its way). With none, the
                // newcomer is closed.
                let candidates = connections.filter { $0.value.opened < firstThisTurn }
                func settled(_ c: Connection) -> Bool { now - c.acceptedAt >= Self.youngNanoseconds }
                let oldest =
                    candidates.filter { $0.value.closesWhenSent }.min { $0.value.opened < $1.value.opened }
                    ?? candidates.filter { !$0.value.isPage && settled($0.value) }.min {
                        $0.value.opened < $1.value.opened
                    }
                    ?? candidates.filter { $0.value.isPage }.min { $0.value.opened < $1.value.opened }
                    ?? candidates.min { $0.value.opened < $1.value.opened }
                refuse(.tooManyConnections)
                guard let (fd, _) = oldest else { continue }  // closed as `stream` goes
                close(fd)
            }
            let fd = stream.descriptor.rawValue
            stream.setSendBufferSize(64 * 1024)
            let c = Connection(stream: stream, deadline: now + Self.headTimeoutNanoseconds, now: now)
            c.acceptedAt = now
            if policy.isWildcard { c.arrivedAt = stream.localAddress()?.hostText }
            c.opened = nextOpened
            nextOpened += 1
            connections[fd] = c
            c.registration = loop?.watch(stream.descriptor) { [unowned self] in try readable(fd) }
            try readable(fd)  // its head is often there already
        }
    }

    func close(_ fd: Int32) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        if let r = c.registration { loop?.cancel(r) }
        if c.isPage { pages -= 1 }
    }

    func refuse(_ reason: ViewAccessPolicy.Refusal) { refusals[reason, default: 0] += 1 }

    /// Reads at most ``readBudget`` bytes in at most ``readsPerWakeUp`` reads (the loop calls again
    /// while more waits: level-triggered; a trickle of tiny segments costs a few reads, not one per
    /// byte), then takes what is whole: a head, or the frames, parsed in place. A read error of any
    /// kind closes the connection, never the process.
    func readable(_ fd: Int32) throws {
        guard let c = connections[fd] else { return }
        let open = try TCPStream.readWithinBudget(
            into: &chunk, budget: Self.readBudget, reads: Self.readsPerWakeUp,
            read: { (try? c.stream.read(into: $0)) ?? .closed }
        ) { bytes in
            if c.closesWhenSent { return true }  // a response is on its way; what else comes is dropped
            c.inbound += bytes
            if c.isPage { try readFrames(c, fd) } else { try readHead(c, fd) }
            return connections[fd] != nil
        }
        if !open { close(fd) }
    }

    /// Reads per connection per wake-up.
    static let readsPerWakeUp = 4

    func readHead(_ c: Connection, _ fd: Int32) throws {
        switch HTTPRequestHead.take(from: &c.inbound, scanned: &c.scanned) {
        case .incomplete: return
        case .invalid:
            refuse(.malformed)
            respond(c, fd, .badRequest)
        case .head(let head): try route(head, c, fd)
        }
    }

    func route(_ head: HTTPRequestHead, _ c: Connection, _ fd: Int32) throws {
        let host = head.field("host")
        let origin = head.field("origin")
        let token = head.query("token")
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            if let r = policy.check(host: host, origin: origin, token: token, stream: false, arrivedAt: c.arrivedAt) {
                return refused(r, c, fd)
            }
            respond(c, fd, HTTPResponse(status: 200, reason: "OK", fields: Self.pageFields, body: page))
        case ("GET", "/stream"):
            if let r = policy.check(host: host, origin: origin, token: token, stream: true, arrivedAt: c.arrivedAt) {
                return refused(r, c, fd)
            }
            guard let switching = WebSocketFrame.handshakeResponse(to: head) else {
                refuse(.malformed)
                return respond(c, fd, .upgradeExpected)
            }
            c.isPage = true
            pages += 1
            write(c, fd, switching)
            // The state as it is now, at once (the other pages keep their schedule).
            write(c, fd, message(markPushed: false))
            if c.inbound.count > c.consumed { try readFrames(c, fd) }
        case ("POST", "/recenter"):
            if let r = policy.checkRecenter(
                host: host, origin: origin, token: head.field("x-mouse3d-token").map { Substring($0) },
                offered: onRecenter != nil,
                arrivedAt: c.arrivedAt)
            {
                return refused(r, c, fd)
            }
            try onRecenter?()
            recentres += 1
            respond(c, fd, HTTPResponse(status: 204, reason: "No Content"))
        default:
            if let r = policy.check(host: host, origin: origin, token: token, stream: false, arrivedAt: c.arrivedAt) {
                return refused(r, c, fd)
            }
            respond(c, fd, .text(404, "Not Found", "not found\n"))
        }
    }

    static let pageFields = HTTPResponse.pageFields(
        contentSecurityPolicy:
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
    )

    func refused(_ reason: ViewAccessPolicy.Refusal, _ c: Connection, _ fd: Int32) {
        refuse(reason)
        respond(
            c, fd,
            reason == .foreignHost
                ? .text(421, "Misdirected Request", "refused: \(reason.rawValue)\n")
                : .text(403, "Forbidden", "refused: \(reason.rawValue)\n"))
    }

    /// How long a closing connection may take to read what is left for it.
    static let closingNanoseconds: UInt64 = 1_000_000_000

    func respond(_ c: Connection, _ fd: Int32, _ response: HTTPResponse) {
        c.closesWhenSent = true
        c.inbound = []
        c.consumed = 0
        c.deadline = MonotonicClock.nanoseconds() + Self.closingNanoseconds
        write(c, fd, response.encoded)
    }

    /// Closes a page with `code` after what is pending, dropping whatever else it sends.
    func closePage(_ c: Connection, _ fd: Int32, code: UInt16) {
        c.closesWhenSent = true
        c.inbound = []
        c.consumed = 0
        c.pong = nil
        c.deadline = MonotonicClock.nanoseconds() + Self.closingNanoseconds
        write(c, fd, WebSocketFrame.close(code))
    }

    /// Takes every whole frame received, in place (no copy but a ping's payload), then drops the
    /// bytes taken at once.
    func readFrames(_ c: Connection, _ fd: Int32) throws {
        defer {
            if c.consumed > 0 {
                c.inbound.removeSubrange(0..<min(c.consumed, c.inbound.count))
                c.consumed = 0
            }
        }
        let now = MonotonicClock.nanoseconds()
        while !c.closesWhenSent {
            let outcome = c.inbound.withUnsafeBytes { WebSocketFrame.decodeClientHeader($0, at: c.consumed) }
            switch outcome {
            case .incomplete: return
            case .invalid:
                refuse(.malformed)
                return closePage(c, fd, code: 1002)
            case .header(let h):
                guard c.frames.take(now: now) else {
                    refuse(.tooManyFrames)
                    return closePage(c, fd, code: 1008)
                }
                c.consumed = h.end
                switch h.opcode {
                case .close: return closePage(c, fd, code: 1000)
                case .ping:
                    c.pong = c.inbound.withUnsafeBytes { WebSocketFrame.unmask(h, $0) }  // the latest only
                    flush(c, fd)
                default: break  // the page sends nothing else; anything it does is dropped
                }
            }
        }
    }

    /// Queues `bytes` and writes what the socket takes now. A page's update is queued only when
    /// nothing is pending (latest wins, see ``push(now:)``); control frames and responses always
    /// are, up to ``maximumOutbound`` held, past which the connection is closed.
    func write(_ c: Connection, _ fd: Int32, _ bytes: [UInt8], force: Bool = true) {
        if !c.pending {
            _ = c.outbound.enqueue(bytes, limit: Self.maximumOutbound)  // nothing waits: always taken
            if !c.closesWhenSent { moveDeadline(c) }
        } else if force {
            guard c.outbound.enqueue(bytes, limit: Self.maximumOutbound) else {
                refuse(.unread)
                return close(fd)
            }
        } else {
            return
        }
        flush(c, fd)
    }

    /// A page's stall deadline, or a request's for its head, from now.
    func moveDeadline(_ c: Connection) {
        c.deadline = MonotonicClock.nanoseconds() + (c.isPage ? Self.stallNanoseconds : Self.headTimeoutNanoseconds)
    }

    func flush(_ c: Connection, _ fd: Int32) {
        while true {
            let (drained, progressed) = c.outbound.drain { (try? c.stream.write($0)) ?? nil }
            // Progress moves a page's stall deadline; a closing connection keeps its own (1 s).
            if progressed && !c.closesWhenSent { moveDeadline(c) }
            switch drained {
            case .failed: return close(fd)
            case .blocked: return
            case .empty: break
            }
            // The pong waits for the socket to take what was before it, so unanswered pings hold one.
            guard let pong = c.pong else { break }
            c.pong = nil
            _ = c.outbound.enqueue(WebSocketFrame.encode(.pong, pong), limit: Self.maximumOutbound)
        }
        if c.closesWhenSent { close(fd) }
    }

    // MARK: Timing

    /// The next push (when something changed and a page is open), the earliest head or stall
    /// deadline, and a retry 5 ms on for a connection with data waiting to be written.
    var nextDeadline: UInt64? {
        var earliest: UInt64? = pages > 0 && version != pushedVersion ? lastPush + Self.pushInterval : nil
        if !streams.isEmpty { earliest = min(earliest ?? .max, lastStreamSweep + 1_000_000_000) }
        // The clock is read once, and only when something waits to be written.
        let retry = connections.values.contains(where: \.pending) ? MonotonicClock.nanoseconds() + 5_000_000 : 0
        for c in connections.values {
            var d = c.isPage && !c.pending ? UInt64.max : c.deadline
            if c.pending { d = min(d, retry) }
            earliest = min(earliest ?? d, d)
        }
        return earliest == .max ? nil : earliest
    }

    func tick(now: UInt64) throws {
        forgetSilentStreams(now: now)
        for (fd, c) in connections {
            if c.pending { flush(c, fd) }
            guard let c = connections[fd] else { continue }
            if now >= c.deadline && (!c.isPage || c.pending) {
                if !c.isPage && !c.closesWhenSent { refuse(.tooSlow) }
                close(fd)
            }
        }
        if pages > 0 && version != pushedVersion && now >= lastPush + Self.pushInterval {
            push(now: now)
        }
    }

    /// Sends the latest state to every page that has nothing pending.
    func push(now: UInt64) {
        // On schedule, so slow sources still get 60 a second; after a pause it starts again from now.
        lastPush = now - lastPush > 2 * Self.pushInterval ? now : lastPush + Self.pushInterval
        let message = message(markPushed: true)
        for (fd, c) in connections where c.isPage && !c.closesWhenSent { write(c, fd, message, force: false) }
    }

    /// The latest state as one framed WebSocket text message.
    func message(markPushed: Bool) -> [UInt8] {
        if markPushed { pushedVersion = version }
        let text = ViewJSON.update(order.compactMap { streams[$0] }, refusals: refusals)
        return WebSocketFrame.encode(.text, Array(text.utf8))
    }
}
