import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Testing

@Suite("Streamer and receiver in one process over loopback")
struct StreamerReceiverTests {
    func receiver(_ format: WireFormat, _ host: String = "127.0.0.1") throws -> AttitudeReceiver {
        try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("\(host):0", defaultPort: 0, passive: false), format: format)
    }

    /// Drains until `count` events arrived or a second passed.
    func events(_ r: AttitudeReceiver, count: Int) throws -> [AttitudeReceiver.Event] {
        var events: [AttitudeReceiver.Event] = []
        let end = MonotonicClock.nanoseconds() + 1_000_000_000
        while events.count < count && MonotonicClock.nanoseconds() < end {
            try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 10_000_000)
            try r.drain { events.append($0) }
        }
        return events
    }

    @Test(
        "Read in batches: 300 datagrams waiting come out in order, each once; one longer than the buffers is refused as oversized, not cut to fit"
    )
    func batches() throws {
        let r = try receiver(.datagram)
        let s = try AttitudeStreamer(peers: [r.localAddress], format: .datagram, streamID: 5)
        let socket = try UDPSocket(family: r.localAddress.family, blocking: true)
        for i in 0..<300 {
            if i == 150 {
                // 3 kB: longer than a batch's 2 kB buffers.
                let long = [UInt8](repeating: 0x4D, count: 3040)
                _ = try long.withUnsafeBytes { try socket.send($0, to: r.localAddress) }
            }
            try s.send(AttitudeFrame(roll: Float(i) * 0.001, pitch: 0, yaw: 0), buttons: [], now: UInt64(i))
        }
        let frames = try events(r, count: 301).compactMap { e -> AttitudeUpdate? in
            if case .frame(let f) = e { return f } else { return nil }
        }
        #expect(frames.map(\.sequence) == Array(0..<300))
        #expect(r.refusals[.oversized] == 1 && r.refusals.total == 1, "\(r.refusals.summary)")
        #expect(r.totals.frames == 300)
    }

    @Test(
        "One frame to three sealed receivers (two IPv4, one IPv6) in one sendmmsg per family: each opens every frame under its own pairing"
    )
    func severalSealedReceivers() throws {
        let pairs = (0..<3).map { _ in SealedPair() }
        let hosts = ["127.0.0.1", "[::1]", "127.0.0.1"]
        let receivers = try zip(pairs, hosts).map { pair, host in
            try AttitudeReceiver(
                listeningOn: SocketAddress.resolve("\(host):0", defaultPort: 0, passive: false), format: .sealed,
                opener: pair.opener())
        }
        let s = try AttitudeStreamer(
            peers: receivers.map(\.localAddress), format: .sealed, sealers: pairs.map { $0.sealer() }, streamID: 9)
        for i in 0..<40 {
            try s.send(AttitudeFrame(roll: Float(i) * 0.01, pitch: 0.2, yaw: -0.3), buttons: [], now: UInt64(i))
        }
        for (k, r) in receivers.enumerated() {
            let frames = try events(r, count: 40).compactMap { e -> AttitudeUpdate? in
                if case .frame(let f) = e { return f } else { return nil }
            }
            #expect(frames.map(\.sequence) == Array(0..<40), "receiver \(k)")
            #expect(r.refusals.total == 0, "receiver \(k): \(r.refusals.summary)")
            #expect(s.peers[k].sent == 40 && s.peers[k].notDelivered == 0)
        }
    }

    @Test(
        "A batch of datagrams goes out in one sendmmsg, each to its own address; one the kernel refuses is counted with its reason and those after it still go"
    )
    func outgoingBatch() throws {
        // An IPv6-only socket cannot send to an IPv4-mapped address: the kernel refuses it with
        // ENETUNREACH whatever the machine's routes, a refusal in the middle of a batch.
        let a: UDPSocket
        let b: UDPSocket
        do {
            a = try UDPSocket(family: AF_INET6, blocking: true)
            b = try UDPSocket(family: AF_INET6, blocking: true)
            try a.bind(to: SocketAddress.resolve("[::1]:0", defaultPort: 0, passive: false))
            try b.bind(to: SocketAddress.resolve("[::1]:0", defaultPort: 0, passive: false))
        } catch {
            try Test.cancel(
                "no IPv6 loopback here (\(error)); the batch is also sent over IPv4 in severalSealedReceivers")
        }
        let sender = try UDPSocket(family: AF_INET6)
        var on: Int32 = 1
        #expect(setsockopt(sender.descriptor.rawValue, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, 4) == 0)
        let mapped = try SocketAddress.resolve("[::ffff:127.0.0.1]:9", defaultPort: 0, passive: false)
        let batch = OutgoingDatagrams(capacity: 4)
        let payloads: [[UInt8]] = [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10]]
        let to = [try a.localAddress(), mapped, try b.localAddress(), try a.localAddress()]
        for (bytes, address) in zip(payloads, to) { bytes.withUnsafeBytes { batch.append($0, to: address) } }
        try sender.send(batch)
        #expect(batch.outcomes.count == 4)
        #expect(batch.outcomes.map { if case .sent = $0 { true } else { false } } == [true, false, true, true])
        if case .notDelivered(let errno) = batch.outcomes[1] { #expect(errno == .networkUnreachable) }
        func read(_ socket: UDPSocket) throws -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }?.length ?? -1
            return Array(buffer.prefix(max(0, n)))
        }
        let first = try read(a)
        let second = try read(a)
        let third = try read(b)
        #expect(first == [1, 2, 3])
        #expect(second == [7, 8, 9, 10])
        #expect(third == [6])
        // Reused: the next batch starts empty.
        batch.removeAll()
        payloads[2].withUnsafeBytes { batch.append($0, to: to[2]) }
        try sender.send(batch)
        let again = try read(b)
        #expect(batch.outcomes.count == 1 && again == [6])
    }

    @Test("Frames arrive in order with sequence numbers, buttons and a send time", arguments: ["127.0.0.1", "[::1]"])
    func frames(host: String) throws {
        let r = try receiver(.datagram, host)
        let s = try AttitudeStreamer(peers: [r.localAddress], format: .datagram, streamID: 77)
        for i in 0..<50 {
            try s.send(
                AttitudeFrame(roll: Float(i) * 0.01, pitch: -0.5, yaw: 1), buttons: i % 2 == 0 ? [.clutch] : [],
                now: UInt64(i))
        }
        let frames = try events(r, count: 51).compactMap { e -> AttitudeUpdate? in
            if case .frame(let f) = e { return f } else { return nil }
        }
        #expect(frames.map(\.sequence) == Array(0..<50))
        #expect(frames.map(\.frame.roll) == (0..<50).map { Float($0) * 0.01 })
        #expect(frames[0].buttons == [.clutch] && frames[1].buttons == [])
        #expect(frames[3].sentNanoseconds == 3)
        #expect(frames.allSatisfy { $0.stream.stream == String(77, radix: 16) })
        let t = r.totals
        #expect(t.frames == 50 && t.dropped == 0 && t.lost == 0 && t.reordered == 0)
    }

    @Test("Raw mode carries bare frames and refuses datagrams")
    func raw() throws {
        let r = try receiver(.raw)
        let raw = try AttitudeStreamer(peers: [r.localAddress], format: .raw)
        let datagrams = try AttitudeStreamer(peers: [r.localAddress], format: .datagram)
        try raw.send(AttitudeFrame(roll: 0.1, pitch: 0.2, yaw: 0.3), buttons: [], now: 0)
        try datagrams.send(AttitudeFrame(roll: 0.1, pitch: 0.2, yaw: 0.3), buttons: [], now: 0)
        try raw.send(AttitudeFrame(roll: 0.4, pitch: 0.2, yaw: 0.3), buttons: [], now: 0)
        let received = try events(r, count: 4).compactMap { e -> AttitudeUpdate? in
            if case .frame(let f) = e { return f } else { return nil }
        }
        #expect(received.map(\.frame.roll) == [0.1, 0.4])
        #expect(received.allSatisfy { $0.buttons == [.clutch] }, "raw frames count as clutch engaged")
        #expect(r.totals.dropped == 1)
        #expect(r.refusals[.wrongSize] == 1 && r.refusals.total == 1, "\(r.refusals.summary)")
    }

    @Test("Two senders are kept apart")
    func twoSenders() throws {
        let r = try receiver(.datagram)
        let a = try AttitudeStreamer(peers: [r.localAddress], format: .datagram, streamID: 1)
        let b = try AttitudeStreamer(peers: [r.localAddress], format: .datagram, streamID: 2)
        for _ in 0..<5 {
            try a.send(AttitudeFrame(roll: 0.1, pitch: 0, yaw: 0), buttons: [], now: 0)
            try b.send(AttitudeFrame(roll: 0.2, pitch: 0, yaw: 0), buttons: [], now: 0)
        }
        let started = try events(r, count: 12).compactMap { e -> UInt32? in
            if case .streamStarted(let key) = e { return key.streamID } else { return nil }
        }
        #expect(Set(started) == [1, 2])
        #expect(r.counters.count == 2)
        #expect(r.counters.values.allSatisfy { $0.frames == 5 && $0.lost == 0 })
    }

    @Test(
        "The silence check is due when the earliest live stream would fall silent: after a check it moves to the next, and a stream that comes back brings it forward"
    )
    func silenceDeadline() throws {
        let r = try receiver(.datagram)
        let limit: UInt64 = 500_000_000
        let a = try AttitudeStreamer(peers: [r.localAddress], format: .datagram, streamID: 1)
        let b = try AttitudeStreamer(peers: [r.localAddress], format: .datagram, streamID: 2)
        /// Sends one frame from `s` and reads it: the clock before and after, between which it was heard.
        func heard(_ s: AttitudeStreamer) throws -> ClosedRange<UInt64> {
            let before = MonotonicClock.nanoseconds()
            try s.send(AttitudeFrame(roll: 0.1, pitch: 0, yaw: 0), buttons: [], now: 0)
            _ = try events(r, count: 2)
            return before...MonotonicClock.nanoseconds()
        }
        func lost(at now: UInt64) throws -> [UInt32] {
            var streams: [UInt32] = []
            try r.checkSilence(now: now) { if case .streamLost(let key) = $0 { streams.append(key.streamID) } }
            return streams
        }
        // A first check schedules the once-a-second look for streams to forget, a second from now.
        #expect(try lost(at: MonotonicClock.nanoseconds()).isEmpty)
        let heardA = try heard(a)
        #expect(
            r.nextCheckDeadline.map { (heardA.lowerBound + limit + 1)...(heardA.upperBound + limit + 1) ~= $0 } == true)
        usleep(20_000)
        let heardB = try heard(b)
        // B's frame does not delay A's deadline.
        let dueA = try #require(r.nextCheckDeadline)
        #expect(dueA <= heardA.upperBound + limit + 1)
        #expect(try lost(at: dueA) == [1])
        // Now B's: moved on, not left at A's.
        let dueB = try #require(r.nextCheckDeadline)
        #expect((heardB.lowerBound + limit + 1)...(heardB.upperBound + limit + 1) ~= dueB, "\(dueB)")
        #expect(try lost(at: dueB) == [2])
        // Both silent: only the look for streams to forget is due; then a frame from A brings the
        // check forward to A's new deadline.
        let quiet = try #require(r.nextCheckDeadline)
        #expect(quiet > dueB)
        let again = try heard(a)
        #expect(r.nextCheckDeadline.map { $0 <= again.upperBound + limit + 1 } == true)
    }
}
