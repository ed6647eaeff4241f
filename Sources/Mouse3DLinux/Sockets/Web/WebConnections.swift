import Mouse3DCore

/// HTTP/1.1 and WebSocket connections served on the event loop, for the live view and the phone
/// page: what both do with a connection, whatever it serves.
///
/// Whoever can reach the port may send anything, so everything a connection holds or spends is
/// bounded: connections accepted ``Limits/acceptBudget`` per wake-up and let in by the delegate; a
/// request head that must arrive within ``Limits/headTimeoutNanoseconds`` (TLS handshake included);
/// at most ``Limits/readBudget`` bytes in ``Limits/readsPerWakeUp`` reads per connection per
/// wake-up (so one flooding connection cannot hold the loop that also carries the stream); client
/// frames of 4 KiB parsed in place and a few a second; one pending pong (the latest ping's, RFC 6455
/// §5.5.3); at most ``Limits/maximumOutbound`` bytes waiting for one connection; a socket that
/// leaves what it was sent unread for ``Limits/stallNanoseconds`` is closed, and one that has not
/// authenticated by its deadline too. Nothing here blocks; every refusal goes to the delegate.
public final class WebConnections {
    /// The bounds on what one server spends.
    public struct Limits: Sendable {
        /// Connections at once.
        public var maximumConnections: Int
        /// How long a connection may take to finish its handshake and request head, and a socket
        /// that authenticates by message to send it.
        public var headTimeoutNanoseconds: UInt64
        /// Frames a socket may send: a burst, then this many a second. `everyFrame`: data frames
        /// count too (a page that sends none); otherwise only pings and pongs do.
        public var frameBurst = 16.0, framesPerSecond = 4.0, everyFrame = true
        public var acceptBudget = 16
        public var readBudget = 65536
        public var readsPerWakeUp = 4
        public var maximumOutbound = 262_144
        public var stallNanoseconds: UInt64 = 10_000_000_000
        /// How long a closing connection may take to read what is left for it.
        public var closingNanoseconds: UInt64 = 1_000_000_000
        /// How long an upgraded socket that must authenticate has to do it (nil: the head's time).
        public var credentialNanoseconds: UInt64?
        /// The loop's time TLS handshakes may take, measured as they run: at most this much in one go
        /// (µs), and this much a second. A handshake step (the key exchange and the signature, 0.5
        /// ms with X25519 or P-256) runs only while the budget holds some; connections past it wait,
        /// unwatched and in order, until it refills, so that no number of hellos holds the loop that
        /// also carries the motion stream for more than a few milliseconds at a time.
        public var handshakeBurstMicroseconds = 4000.0
        public var handshakeMicrosecondsPerSecond = 100_000.0

        public init(maximumConnections: Int, headTimeoutNanoseconds: UInt64) {
            self.maximumConnections = maximumConnections
            self.headTimeoutNanoseconds = headTimeoutNanoseconds
        }
    }

    /// What the server refuses by itself.
    public enum Refusal: Sendable, Equatable {
        /// A handshake that failed (not TLS, say).
        case notTLS
        /// TLS the server does not offer (a ClientHello with no group, signature or suite in common).
        case tlsRefused
        /// A request head or frame that is not well-formed, or too large.
        case malformed
        /// No request head by the deadline.
        case tooSlow
        /// A socket that did not authenticate by its deadline.
        case unauthenticated
        /// More frames than the budget.
        case tooManyFrames
        /// More left unread than ``Limits/maximumOutbound``, or what was sent left unread for
        /// ``Limits/stallNanoseconds``.
        case unread
    }

    /// What browsers do every day that ends a connection, counted apart from refusals: leaving a
    /// TLS handshake (at a certificate warning, or a speculative connection given up), and opening a
    /// connection that sends nothing (a preconnect, a keep-alive left idle) until its deadline.
    public enum Ordinary: Sendable, Equatable, CaseIterable {
        case leftHandshake, idle
    }

    /// One connection and what it holds.
    public final class Connection {
        /// Its descriptor (the table's key).
        public let fd: Int32
        let transport: any WebTransport
        var registration: EventLoop.Registration?
        /// Bytes received and not yet taken; `consumed` of them are taken (parsed in place).
        var inbound: [UInt8] = []
        var consumed = 0
        var outbound = OutboundQueue()
        /// The latest ping's payload, answered once nothing else is pending.
        var pong: [UInt8]?
        /// Until the head is in, the socket has authenticated, or (a socket) the pending message moves.
        public internal(set) var deadline: UInt64
        /// Upgraded to a WebSocket.
        public internal(set) var isSocket = false
        /// Whether its socket has shown what the server asks (set by the delegate).
        public internal(set) var authenticated = false
        /// Answered and closing once what is pending is written.
        public internal(set) var closesWhenSent = false
        /// The order it was accepted in, and when (CLOCK_MONOTONIC ns).
        public let opened: UInt64, acceptedAt: UInt64
        /// The peer's address without its port, and its network (``SocketAddress/network``).
        public let peer: String, network: String
        /// The address and port it arrived at (recorded for a server on every address).
        public let arrivedAt: String?
        /// How much of `inbound` was looked through for the end of the head.
        var scanned = 0
        /// Whether any byte of a request came (after TLS, if any).
        var heardFrom = false
        /// Whether it spoke plain HTTP on a TLS port.
        public var isPlainHTTP: Bool { transport.isPlainOnTLSPort }
        /// Whether its client sent what opens its handshake (a whole ClientHello): one that sent a
        /// byte and stopped, which costs a flooder nothing, has not.
        public var helloReceived: Bool { transport.helloReceived }
        var frames: TokenBucket

        init(
            fd: Int32, transport: any WebTransport, peer: String, network: String, arrivedAt: String?, opened: UInt64,
            now: UInt64, limits: Limits
        ) {
            self.fd = fd
            self.transport = transport
            self.peer = peer
            self.network = network
            self.arrivedAt = arrivedAt
            self.opened = opened
            acceptedAt = now
            progressedAt = now
            deadline = now + limits.headTimeoutNanoseconds
            frames = TokenBucket(ratePerSecond: limits.framesPerSecond, burst: limits.frameBurst, now: now)
        }

        /// Whether bytes wait to be written.
        public var pending: Bool { outbound.isPending }
        /// The peer's address as a person reads it (`10.0.0.7`, `fe80::1`).
        public var peerHost: String {
            let host = peer.hasSuffix(":0") ? peer.dropLast(2) : Substring(peer)
            return String(host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host)
        }
        /// When it last came a step further: accepted, its TLS handshake done, its request in, its
        /// socket authenticated (CLOCK_MONOTONIC ns). A server full of connections turns away the
        /// one that has stood still longest: a connection held half-way (a socket that never
        /// authenticates, a handshake left hanging) goes before a fresh one that is a round trip
        /// from its next step.
        public internal(set) var progressedAt: UInt64
        var waits: Bool { outbound.isPending || transport.bufferedBytes > 0 }
    }

    public let limits: Limits
    /// The listening socket's address.
    public var localAddress: SocketAddress { listener.localAddress }
    /// The open connections by descriptor.
    public private(set) var connections: [Int32: Connection] = [:]
    /// How many of them are WebSockets (kept as they are upgraded and closed).
    public private(set) var sockets = 0
    public weak var delegate: WebConnectionsDelegate?

    /// What the TLS handshakes cost the loop, for a closing summary (nil when there were none).
    public var handshakeSummary: String? {
        guard handshakeSteps > 0 else { return nil }
        func ms(_ ns: UInt64) -> String { fixed(Double(ns) / 1e6, 2) }
        return
            "TLS handshake steps \(handshakeSteps), \(ms(handshakeTime)) ms in all, longest \(ms(longestHandshakeStep)) ms"
            + (handshakesDeferred > 0 ? ", \(handshakesDeferred) held back for the loop's handshake budget" : "")
    }

    let listener: TCPListener
    let makeTransport: (TCPStream) throws -> any WebTransport
    let recordsArrival: Bool
    var nextOpened: UInt64 = 0
    var credentialTimeout: UInt64 { limits.credentialNanoseconds ?? limits.headTimeoutNanoseconds }

    /// The handshakes' time budget (µs; see ``Limits/handshakeBurstMicroseconds``).
    var handshakes: TokenBucket
    /// Connections waiting for that budget, oldest first (their descriptors are not watched meanwhile).
    var awaitingHandshake: [Int32] = []
    /// Handshake steps run and their time (ns), the longest one, and how many times a handshake
    /// waited for the budget.
    public private(set) var handshakeSteps = 0, handshakeTime: UInt64 = 0, longestHandshakeStep: UInt64 = 0,
        handshakesDeferred = 0
    /// One read buffer for every connection (reads happen one at a time on the loop's thread).
    var chunk = [UInt8](repeating: 0, count: 16384)
    var registrations: [EventLoop.Registration] = []
    weak var loop: EventLoop?

    /// Serves `listener`'s connections over what `makeTransport` makes of each (the stream itself,
    /// or TLS over it); `recordsArrival`: note the address each arrived at (a server on every address).
    public init(
        listener: TCPListener, limits: Limits, recordsArrival: Bool,
        makeTransport: @escaping (TCPStream) throws -> any WebTransport = { $0 }
    ) {
        self.listener = listener
        self.limits = limits
        self.recordsArrival = recordsArrival
        self.makeTransport = makeTransport
        handshakes = TokenBucket(
            ratePerSecond: limits.handshakeMicrosecondsPerSecond, burst: limits.handshakeBurstMicroseconds, now: 0)
    }

    /// Serves on `loop` until ``stop()``.
    public func attach(to loop: EventLoop) {
        self.loop = loop
        registrations.append(loop.watch(listener.descriptor) { [unowned self] in try acceptAll() })
        registrations.append(
            loop.timer(deadline: { [unowned self] in nextDeadline }) { [unowned self] now in try tick(now: now) })
    }

    /// Stops serving: every connection is closed (without ``WebConnectionsDelegate/closed(_:)``).
    public func stop() {
        if let loop {
            loop.cancel(&registrations)
            for c in connections.values { if let r = c.registration { loop.cancel(r) } }
        }
        connections.removeAll()
        awaitingHandshake.removeAll()
        sockets = 0
    }

    /// Closes `fd`'s connection at once.
    public func close(_ fd: Int32) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        if let r = c.registration { loop?.cancel(r) }
        if c.registration == nil { awaitingHandshake.removeAll { $0 == fd } }
        if c.isSocket { sockets -= 1 }
        delegate?.closed(c)
    }

    func acceptAll() throws {
        let turn = nextOpened
        for _ in 0..<limits.acceptBudget {
            guard let (stream, from) = try listener.accept() else { return }
            let now = MonotonicClock.nanoseconds()
            let peer = from.withPort(0).description
            let network = from.network
            // Turned away, it is closed as `stream` goes.
            guard delegate?.admit(peer: peer, network: network, server: self, turn: turn, now: now) == true,
                connections.count < limits.maximumConnections
            else { continue }
            let fd = stream.descriptor.rawValue
            stream.setSendBufferSize(64 * 1024)
            // A connection whose transport cannot be made (OpenSSL out of memory, say) is closed, and
            // the server goes on: nothing one client brings about may end the process.
            guard let transport = try? makeTransport(stream) else {
                delegate?.refused(.notTLS)
                continue
            }
            let c = Connection(
                fd: fd, transport: transport, peer: peer, network: network,
                arrivedAt: recordsArrival ? stream.localAddress()?.hostText : nil, opened: nextOpened, now: now,
                limits: limits)
            nextOpened += 1
            connections[fd] = c
            c.registration = loop?.watch(stream.descriptor) { [unowned self] in try readable(fd) }
            try readable(fd)  // the head (or the ClientHello) is often there already
        }
    }

    /// Goes on with the handshake, then reads within the budget (the loop calls again while more
    /// waits: level-triggered) and takes what is whole: a head, or the frames. A read error of any
    /// kind closes the connection, never the process.
    func readable(_ fd: Int32, resuming: Bool = false) throws {
        guard let c = connections[fd] else { return }
        if c.transport.handshakePending {
            let start = MonotonicClock.nanoseconds()
            // In order: while others wait for the budget, a newcomer waits behind them.
            guard handshakes.wouldAllow(now: start), resuming || awaitingHandshake.isEmpty else {
                return awaitHandshakeBudget(c)
            }
            let outcome = c.transport.advanceHandshake()
            let took = MonotonicClock.nanoseconds() - start
            handshakes.charge(Double(took) / 1000, now: start + took)
            longestHandshakeStep = max(longestHandshakeStep, took)
            handshakeSteps += 1
            handshakeTime += took
            switch outcome {
            case .done: c.progressedAt = start + took
            case .inProgress: return
            case .failed:
                delegate?.refused(.notTLS)
                return close(fd)
            case .refused:
                delegate?.refused(.tlsRefused)
                return close(fd)
            case .abandoned:
                // A browser leaves after its whole hello (at a certificate warning); an end before
                // one is what a flooder's byte-and-go looks like, and is refused as such.
                if c.transport.helloReceived || c.transport.silent {
                    delegate?.ordinary(.leftHandshake)
                } else {
                    delegate?.refused(.notTLS)
                }
                return close(fd)
            }
        }
        // What TLS holds decrypted beyond the budget is read at the next tick.
        let open = try TCPStream.readWithinBudget(
            into: &chunk, budget: limits.readBudget, reads: limits.readsPerWakeUp,
            read: { c.transport.receiveBytes(into: $0) }
        ) { bytes in
            if c.closesWhenSent { return true }  // a response is on its way; what else comes is dropped
            c.heardFrom = true
            c.inbound += bytes
            if c.isSocket { try readFrames(c) } else { try readHead(c) }
            return connections[fd] === c
        }
        if !open { close(fd) }
    }

    /// Stops watching `c` until the handshake budget refills (its bytes wait in the socket).
    func awaitHandshakeBudget(_ c: Connection) {
        if let r = c.registration { loop?.cancel(r) }
        c.registration = nil
        awaitingHandshake.append(c.fd)
        handshakesDeferred += 1
    }

    /// Watches the connections that waited for the handshake budget again, oldest first, as far as
    /// it goes (each goes on with its handshake now; one the budget runs out on waits again).
    func resumeHandshakes(now: UInt64) throws {
        while let fd = awaitingHandshake.first, handshakes.wouldAllow(now: now) {
            awaitingHandshake.removeFirst()
            guard let c = connections[fd], c.registration == nil else { continue }
            c.registration = loop?.watch(c.transport.descriptor) { [unowned self] in try readable(fd) }
            try readable(fd, resuming: true)
        }
    }

    func readHead(_ c: Connection) throws {
        switch HTTPRequestHead.take(from: &c.inbound, scanned: &c.scanned) {
        case .incomplete: return
        case .invalid:
            delegate?.refused(.malformed)
            respond(c, .badRequest)
        case .head(let head):
            c.scanned = 0  // what is left in `inbound` is frames, or nothing
            c.progressedAt = MonotonicClock.nanoseconds()
            try delegate?.route(head, on: c)
            if c.isSocket && connections[c.fd] === c && c.inbound.count > c.consumed { try readFrames(c) }
        }
    }

    /// Answers a request and closes the connection once the answer is written (what else it sends
    /// is dropped; it has ``Limits/closingNanoseconds`` to read it).
    public func respond(_ c: Connection, _ response: HTTPResponse) {
        guard isOpen(c), !c.closesWhenSent else { return }
        c.closesWhenSent = true
        c.inbound = []
        c.consumed = 0
        c.deadline = MonotonicClock.nanoseconds() + limits.closingNanoseconds
        write(c, response.encoded)
    }

    /// Switches a request to a WebSocket with `switching` (the handshake's response); an
    /// unauthenticated socket must authenticate within ``Limits/headTimeoutNanoseconds``.
    public func upgrade(_ c: Connection, switching: [UInt8], authenticated: Bool) {
        guard isOpen(c), !c.closesWhenSent, !c.isSocket else { return }
        c.isSocket = true
        sockets += 1
        c.authenticated = authenticated
        c.deadline =
            MonotonicClock.nanoseconds() + (authenticated ? limits.headTimeoutNanoseconds : credentialTimeout)
        write(c, switching)
    }

    /// Closes a socket with `code` after what is pending, dropping whatever else it sends.
    public func closeSocket(_ c: Connection, code: UInt16) {
        guard isOpen(c), !c.closesWhenSent else { return }
        c.closesWhenSent = true
        c.inbound = []
        c.consumed = 0
        c.pong = nil
        c.deadline = MonotonicClock.nanoseconds() + limits.closingNanoseconds
        write(c, WebSocketFrame.close(code))
    }

    /// A frame's payload, unmasked (valid during ``WebConnectionsDelegate/frame(_:on:)``).
    public func payload(_ header: WebSocketFrame.Header, of c: Connection) -> [UInt8] {
        precondition(header.end <= c.inbound.count, "a frame's payload asked for after its bytes were dropped")
        return c.inbound.withUnsafeBytes { WebSocketFrame.unmask(header, $0) }
    }

    /// Marks a socket as having shown what the server asks; from now its deadline is the stall one.
    public func authenticate(_ c: Connection) {
        c.authenticated = true
        c.progressedAt = MonotonicClock.nanoseconds()
        moveDeadline(c)
    }

    /// Whether `c` is still in the table (not closed by either side).
    public func isOpen(_ c: Connection) -> Bool { connections[c.fd] === c }

    /// Takes every whole frame received, in place (no copy but what is unmasked), then drops the
    /// bytes taken at once. Nothing more is taken once the connection is closing or gone (a frame
    /// after a close must not press a button nobody will release).
    func readFrames(_ c: Connection) throws {
        defer {
            if c.consumed > 0 {
                c.inbound.removeSubrange(0..<min(c.consumed, c.inbound.count))
                c.consumed = 0
            }
        }
        let now = MonotonicClock.nanoseconds()
        while !c.closesWhenSent && connections[c.fd] === c {
            let outcome = c.inbound.withUnsafeBytes { WebSocketFrame.decodeClientHeader($0, at: c.consumed) }
            switch outcome {
            case .incomplete: return
            case .invalid:
                delegate?.refused(.malformed)
                return closeSocket(c, code: 1002)
            case .header(let h):
                c.consumed = h.end  // the payload stays where it is until the frames are dropped
                if limits.everyFrame || (h.opcode.isControl && h.opcode != .close) {
                    guard c.frames.take(now: now) else {
                        delegate?.refused(.tooManyFrames)
                        return closeSocket(c, code: 1008)
                    }
                }
                if try delegate?.frame(h, on: c) == true { continue }
                guard !c.closesWhenSent, isOpen(c) else { return }  // the delegate closed it
                switch h.opcode {
                case .close: return closeSocket(c, code: 1000)
                case .ping:
                    c.pong = payload(h, of: c)  // the latest only
                    flush(c)
                default: break  // dropped
                }
            }
        }
    }

    /// Queues `bytes` and writes what the socket takes now. With `force` false, queued only when
    /// nothing is pending (latest wins: a page's update); otherwise always, up to
    /// ``Limits/maximumOutbound`` held, past which the connection is closed.
    public func write(_ c: Connection, _ bytes: [UInt8], force: Bool = true) {
        guard isOpen(c) else { return }
        if !c.pending {
            _ = c.outbound.enqueue(bytes, limit: limits.maximumOutbound)  // nothing waits: always taken
            moveDeadline(c)
        } else if force {
            guard c.outbound.enqueue(bytes, limit: limits.maximumOutbound) else {
                delegate?.refused(.unread)
                return close(c.fd)
            }
        } else {
            return
        }
        flush(c)
    }

    /// An authenticated socket's stall deadline, from now.
    func moveDeadline(_ c: Connection) {
        if c.isSocket && c.authenticated && !c.closesWhenSent {
            c.deadline = MonotonicClock.nanoseconds() + limits.stallNanoseconds
        }
    }

    func flush(_ c: Connection) {
        while true {
            let (drained, progressed) = c.outbound.drain { c.transport.sendBytes($0) }
            if progressed { moveDeadline(c) }
            switch drained {
            case .failed: return close(c.fd)
            case .blocked: return
            case .empty: break
            }
            // The pong waits for the socket to take what was before it, so unanswered pings hold one.
            guard let pong = c.pong else { break }
            c.pong = nil
            _ = c.outbound.enqueue(WebSocketFrame.encode(.pong, pong), limit: limits.maximumOutbound)
            moveDeadline(c)  // the stall is counted from when it was queued
        }
        if c.closesWhenSent { close(c.fd) }
    }

    /// The earliest head, authentication, closing or stall deadline, a retry 5 ms on for a
    /// connection with bytes waiting (to write, or held by TLS), and the delegate's own.
    var nextDeadline: UInt64? {
        var earliest = delegate?.nextDeadline
        if !awaitingHandshake.isEmpty {
            let resume = handshakes.nextTokenTime
            earliest = min(earliest ?? resume, resume)
        }
        // The clock is read once, and only when something waits.
        let retry = connections.values.contains(where: \.waits) ? MonotonicClock.nanoseconds() + 5_000_000 : 0
        for c in connections.values {
            var d = c.isSocket && c.authenticated && !c.pending ? UInt64.max : c.deadline
            if c.waits { d = min(d, retry) }
            earliest = min(earliest ?? d, d)
        }
        return earliest == .max ? nil : earliest
    }

    func tick(now: UInt64) throws {
        try resumeHandshakes(now: now)
        for (fd, c) in connections {
            if c.pending { flush(c) }
            guard connections[fd] === c else { continue }
            if c.transport.bufferedBytes > 0 { try readable(fd) }
            guard connections[fd] === c, now >= c.deadline else { continue }
            if c.closesWhenSent {
                close(fd)  // it had its time to read the answer
            } else if c.isSocket && c.authenticated {
                guard c.pending else { continue }
                delegate?.refused(.unread)  // stopped reading
                close(fd)
            } else if !c.isSocket && !c.heardFrom && (c.transport.silent || !c.transport.handshakePending) {
                // Sent nothing, or finished its handshake and sent no request: a browser's spare
                // connection. One that sent part of a handshake and stopped is too slow (a refusal).
                delegate?.ordinary(.idle)
                close(fd)
            } else {
                delegate?.refused(c.isSocket ? .unauthenticated : .tooSlow)
                close(fd)
            }
        }
        try delegate?.tick(now: now)
    }
}
