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
