import Mouse3DCore
import Mouse3DLinux

/// The live view: a small HTTP/1.1 and WebSocket server on the process's event loop that serves the
/// page and pushes every stream's latest attitude at most 60 times a second.
///
/// Whoever can reach the port may send anything, so everything it holds is bounded: at most
/// ``maximumConnections`` connections (more are closed at once), a request head of 8 KiB that must
/// arrive within ``headTimeoutNanoseconds``, client frames of 4 KiB, one pending message per page (a
/// page that does not read skips updates: latest wins, and it is closed once stalled for
/// ``stallNanoseconds``). Every refusal is counted by reason; none is logged per request. Nothing here
/// blocks: sockets are non-blocking, and a push is one JSON text framed once for every page.
public final class ViewServer {
    /// Streams kept for the page; updates of further streams are not shown.
    public static let maximumStreams = 64
    /// Connections served at once (pages and requests in progress).
    public static let maximumConnections = 32
    /// How long a connection may take to send its request head.
    public static let headTimeoutNanoseconds: UInt64 = 5_000_000_000
    /// How long a page may leave a message unread before it is closed.
    public static let stallNanoseconds: UInt64 = 10_000_000_000
    /// The fastest the pages are updated, in Hz: a display's rate.
    public static let updateHertz = 60.0
    static let pushInterval = UInt64(1e9 / updateHertz)

    /// Who may use it.
    public let policy: ViewAccessPolicy
    /// The address and port it listens on.
    public let address: String, port: UInt16
    /// The secret the page must send to recenter; nil when the view offers no recenter.
    public let recenterToken: String?
    /// Recentres the attitude (called on the loop's thread for an accepted recenter request).
    let onRecenter: (() throws -> Void)?

    let listener: TCPListener
    let page: [UInt8]
    var connections: [Int32: Connection] = [:]
    var streams: [String: ViewStreamState] = [:]
    var order: [String] = []
    /// Refusals so far, by reason.
    public private(set) var refusals: [ViewAccessPolicy.Refusal: Int] = [:]
    /// Recenter requests carried out.
    public private(set) var recentres = 0
    var version: UInt64 = 0, pushedVersion: UInt64 = 0, lastPush: UInt64 = 0
    var pages = 0
    var nextOpened: UInt64 = 0
    var registrations: [EventLoop.Registration] = []
    weak var loop: EventLoop?

    /// Listens on `address` (numeric IPv4 or IPv6) and `port` (0: any free one, see ``port``).
    /// `onRecenter`, given only for a loopback view, offers a recenter button guarded by a token.
    public init(address: String, port: UInt16, onRecenter: (() throws -> Void)? = nil) throws {
        let socketAddress: SocketAddress
        do {
            socketAddress = try SocketAddress.resolve(SocketAddress.text(host: address, port: port), defaultPort: port, passive: false)
        } catch {
            throw ViewServerError(message: "cannot serve the view on \(address):\(port): \(error)")
        }
        do {
            listener = try TCPListener(listeningOn: socketAddress)
        } catch {
            throw ViewServerError(message: "cannot serve the view on \(address):\(port): \(SystemCallError.describeBindFailure(error))")
        }
        self.address = address
        self.port = listener.localAddress.port
        policy = ViewAccessPolicy(address: address, port: self.port)
        let recenter = ViewAccessPolicy.isLoopback(address) ? onRecenter : nil
        self.onRecenter = recenter
        recenterToken = recenter == nil ? nil : ViewAccessPolicy.makeToken()
        page = Array(ViewPage.html(recenterToken: recenterToken).utf8)
    }

    /// Serves on `loop` until ``stop()``.
    public func attach(to loop: EventLoop) {
        self.loop = loop
        registrations.append(loop.watch(listener.descriptor) { [unowned self] in try acceptAll() })
        registrations.append(loop.timer(deadline: { [unowned self] in nextDeadline }) { [unowned self] now in try tick(now: now) })
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
        label: String, sequence: UInt64, roll: Double, pitch: Double, yaw: Double, nanoseconds: UInt64, sentNanoseconds: UInt64? = nil
    ) {
        if streams[label] != nil {
            streams[label]!.take(sequence: sequence, roll: roll, pitch: pitch, yaw: yaw, nanoseconds: nanoseconds, sentNanoseconds: sentNanoseconds)
        } else {
            guard streams.count < Self.maximumStreams else { return }
            streams[label] = ViewStreamState(
                label: label, frames: 1, sequence: sequence, rollDegrees: roll, pitchDegrees: pitch, yawDegrees: yaw,
                receivedNanoseconds: nanoseconds)
            order.append(label)
        }
        version &+= 1
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
        var inbound: [UInt8] = []
        var outbound: [UInt8] = []
        var sent = 0
        /// Until the head is in (request), or when the pending message was last moved (page).
        var deadline: UInt64
        var isPage = false
        var closesWhenSent = false
        /// The order it was accepted in.
        var opened: UInt64 = 0

        init(stream: TCPStream, deadline: UInt64) {
            self.stream = stream
            self.deadline = deadline
        }

        var pending: Bool { sent < outbound.count }
    }

    func acceptAll() throws {
        while let (stream, _) = try listener.accept() {
            if connections.count >= Self.maximumConnections {
                // Full: the oldest connection still sending its head makes room (so connections that
                // send nothing cannot keep the page from loading); with none, the new one is closed.
                guard let (oldest, _) = connections.filter({ !$0.value.isPage && !$0.value.closesWhenSent })
                    .min(by: { $0.value.opened < $1.value.opened })
                else {
                    refuse(.tooManyConnections)
                    continue  // closed as `stream` goes
                }
                refuse(.tooManyConnections)
                close(oldest)
            }
            let fd = stream.descriptor.rawValue
            stream.setSendBufferSize(64 * 1024)
            let c = Connection(stream: stream, deadline: MonotonicClock.nanoseconds() + Self.headTimeoutNanoseconds)
            c.opened = nextOpened
            nextOpened += 1
            connections[fd] = c
            c.registration = loop?.watch(stream.descriptor) { [unowned self] in try readable(fd) }
        }
    }

    func close(_ fd: Int32) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        if let r = c.registration { loop?.cancel(r) }
        if c.isPage { pages -= 1 }
    }

    func refuse(_ reason: ViewAccessPolicy.Refusal) { refusals[reason, default: 0] += 1 }

    func readable(_ fd: Int32) throws {
        guard let c = connections[fd] else { return }
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let outcome = try chunk.withUnsafeMutableBytes { try c.stream.read(into: $0) }
            switch outcome {
            case .wouldBlock: return
            case .closed: return close(fd)
            case .bytes(let n):
                if c.closesWhenSent { continue }  // a response is on its way; what else comes is dropped
                c.inbound += chunk[0..<n]
                if c.isPage { try readFrames(c, fd) } else { try readHead(c, fd) }
                guard connections[fd] != nil else { return }
            }
        }
    }

    func readHead(_ c: Connection, _ fd: Int32) throws {
        switch HTTPRequestHead.parse(c.inbound) {
        case .incomplete: return
        case .invalid:
            refuse(.malformed)
            respond(c, fd, .text(400, "Bad Request", "bad request\n"))
        case .complete(let head, let length):
            c.inbound.removeFirst(length)
            try route(head, c, fd)
        }
    }

    func route(_ head: HTTPRequestHead, _ c: Connection, _ fd: Int32) throws {
        let host = head.field("host"), origin = head.field("origin")
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            if let r = policy.check(host: host, origin: origin, stream: false) { return refused(r, c, fd) }
            respond(c, fd, HTTPResponse(status: 200, reason: "OK", fields: Self.pageFields, body: page))
        case ("GET", "/stream"):
            if let r = policy.check(host: host, origin: origin, stream: true) { return refused(r, c, fd) }
            guard head.field("upgrade", contains: "websocket"), head.field("connection", contains: "upgrade"),
                  head.field("sec-websocket-version") == "13", let key = head.field("sec-websocket-key"),
                  Base64.decode(key)?.count == 16
            else {
                refuse(.malformed)
                return respond(c, fd, .text(400, "Bad Request", "a WebSocket upgrade (version 13) is expected here\n"))
            }
            let accept = Base64.encode(SHA1.hash(Array((key + WebSocketFrame.handshakeGUID).utf8)))
            let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
            c.isPage = true
            pages += 1
            write(c, fd, Array(response.utf8))
            // The recenter token, first, on every connection: a page that reconnects to a restarted
            // process learns the new one (the socket, like the page, is only for the view's own origin).
            if let recenterToken {
                write(c, fd, WebSocketFrame.encode(.text, Array("{\"recenter_token\":\"\(recenterToken)\"}".utf8)))
            }
            // The state as it is now, at once (the other pages keep their schedule).
            write(c, fd, message(markPushed: false))
            if !c.inbound.isEmpty { try readFrames(c, fd) }
        case ("POST", "/recenter"):
            if let r = policy.checkRecenter(host: host, origin: origin, token: head.field("x-mouse3d-token"), expected: recenterToken) {
                return refused(r, c, fd)
            }
            try onRecenter?()
            recentres += 1
            respond(c, fd, HTTPResponse(status: 204, reason: "No Content"))
        default:
            if let r = policy.check(host: host, origin: origin, stream: false) { return refused(r, c, fd) }
            respond(c, fd, .text(404, "Not Found", "not found\n"))
        }
    }

    static let pageFields: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    func refused(_ reason: ViewAccessPolicy.Refusal, _ c: Connection, _ fd: Int32) {
        refuse(reason)
        respond(c, fd, reason == .foreignHost
            ? .text(421, "Misdirected Request", "refused: \(reason.rawValue)\n") : .text(403, "Forbidden", "refused: \(reason.rawValue)\n"))
    }

    func respond(_ c: Connection, _ fd: Int32, _ response: HTTPResponse) {
        c.closesWhenSent = true
        c.inbound = []
        write(c, fd, response.encoded)
    }

    func readFrames(_ c: Connection, _ fd: Int32) throws {
        while !c.inbound.isEmpty {
            switch WebSocketFrame.decodeClientFrame(c.inbound) {
            case .incomplete: return
            case .invalid(let code, _):
                refuse(.malformed)
                c.closesWhenSent = true
                c.inbound = []
                return write(c, fd, WebSocketFrame.close(code), force: true)
            case .frame(let opcode, let payload, _, let length):
                c.inbound.removeFirst(length)
                switch opcode {
                case .close:
                    c.closesWhenSent = true
                    c.inbound = []
                    return write(c, fd, WebSocketFrame.close(1000), force: true)
                case .ping: write(c, fd, WebSocketFrame.encode(.pong, payload), force: true)
                default: break  // the page sends nothing else; anything it does is read and dropped
                }
            }
        }
    }

    /// Queues `bytes` and writes what the socket takes now. A page's update is queued only when
    /// nothing is pending (latest wins, see ``push(now:)``); control frames and responses always are.
    func write(_ c: Connection, _ fd: Int32, _ bytes: [UInt8], force: Bool = true) {
        if !c.pending {
            c.outbound = bytes
            c.sent = 0
            c.deadline = MonotonicClock.nanoseconds() + (c.isPage ? Self.stallNanoseconds : Self.headTimeoutNanoseconds)
        } else if force {
            c.outbound += bytes
        } else {
            return
        }
        flush(c, fd)
    }

    func flush(_ c: Connection, _ fd: Int32) {
        while c.pending {
            let n = c.outbound.withUnsafeBytes { all in
                try? c.stream.write(UnsafeRawBufferPointer(rebasing: all[c.sent...]))
            }
            guard let written = n ?? nil else { return close(fd) }
            if written == 0 { return }
            c.sent += written
            c.deadline = MonotonicClock.nanoseconds() + (c.isPage ? Self.stallNanoseconds : Self.headTimeoutNanoseconds)
        }
        c.outbound = []
        c.sent = 0
        if c.closesWhenSent { close(fd) }
    }

    // MARK: Timing

    /// The next push (when something changed and a page is open), the earliest head or stall
    /// deadline, and a retry 5 ms on for a connection with data waiting to be written.
    var nextDeadline: UInt64? {
        var earliest: UInt64? = pages > 0 && version != pushedVersion ? lastPush + Self.pushInterval : nil
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

/// An error starting the view.
public struct ViewServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
