import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Testing

@Suite("Receiver announcements (TXT records)")
struct ReceiverAnnouncementTests {
    let sample = ReceiverAnnouncement(
        name: "desk", fingerprint: "0123-4567-89ab-cdef", wire: "sealed", outputs: ["pointer", "print"],
        pairingPort: 24931)

    func txt(_ entries: [String]) -> [String: String] {
        var d: [String: String] = [:]
        for e in entries {
            let parts = e.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            d[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return d
    }

    @Test("What a receiver announces reads back the same")
    func roundTrip() {
        #expect(sample.txtEntries.allSatisfy { $0.utf8.count <= 255 })
        #expect(ReceiverAnnouncement.parse(txt(sample.txtEntries), instanceName: "x") == .success(sample))
    }

    @Test("Records this version cannot use are refused, with the reason")
    func refused() {
        var t = txt(sample.txtEntries)
        t["v"] = "2"
        #expect(ReceiverAnnouncement.parse(t, instanceName: "x") == .failure(.unsupportedVersion("2")))
        t["v"] = nil
        #expect(ReceiverAnnouncement.parse(t, instanceName: "x") == .failure(.missingVersion))
        t["v"] = "1"
        t["pp"] = "99999"
        #expect(ReceiverAnnouncement.parse(t, instanceName: "x") == .failure(.badPairingPort("99999")))
        t["pp"] = "24931"
        t["fp"] = "not-a-fingerprint"
        #expect(ReceiverAnnouncement.parse(t, instanceName: "x") == .failure(.badFingerprint("not-a-fingerprint")))
    }

    @Test(
        "Missing optional keys take defaults; the instance name stands in for a missing name; unknown keys are ignored")
    func defaults() throws {
        let parsed = try ReceiverAnnouncement.parse(["v": "1", "future": "x"], instanceName: "desk #2").get()
        #expect(
            parsed.name == "desk #2" && parsed.fingerprint == "" && parsed.wire == "sealed"
                && parsed.pairingPort == 24931 && parsed.outputs == [])
    }
}

@Suite("The directory of discovered receivers")
struct ReceiverDirectoryTests {
    let record = [
        "v": "1", "name": "desk", "fp": "0123-4567-89ab-cdef", "wire": "sealed", "out": "print", "pp": "24931"
    ]

    func service(_ address: String, interface: Int32 = 1, txt: [String: String]? = nil, name: String = "desk") throws
        -> DiscoveredService
    {
        DiscoveredService(
            name: name, interface: interface, hostName: "desk.local",
            address: try SocketAddress.resolve(address, defaultPort: 0, passive: false), txt: txt ?? record)
    }

    @Test("Found, moved to another port, gone: each reported once, with the preferred address")
    func lifecycle() throws {
        var d = ReceiverDirectory()
        guard case .reachable(let r)? = d.apply(.found(try service("127.0.0.1:40000"))) else {
            Issue.record("not reachable")
            return
        }
        #expect(r.preferred.description == "127.0.0.1:40000" && r.announcement.name == "desk")
        #expect(d.apply(.found(try service("127.0.0.1:40000"))) == nil, "the same again changes nothing")
        #expect(d.receiver(fingerprint: "0123-4567-89ab-cdef")?.instance == "desk")
        #expect(d.receiver(named: "desk") != nil && d.receiver(named: "other") == nil)
        #expect(
            d.apply(.removed(name: "desk", interface: 1, ipv6: false))
                == .gone(instance: "desk", fingerprint: "0123-4567-89ab-cdef"))
        #expect(d.receivers.isEmpty)
        #expect(d.apply(.removed(name: "desk", interface: 1, ipv6: false)) == nil, "gone once")
        guard case .reachable(let back)? = d.apply(.found(try service("127.0.0.1:40002"))) else {
            Issue.record("not back")
            return
        }
        #expect(back.preferred.port == 40002)
    }

    @Test("IPv4 is preferred over IPv6, and losing one family keeps the other")
    func families() throws {
        var d = ReceiverDirectory()
        _ = d.apply(.found(try service("[::1]:40000")))
        guard case .reachable(let both)? = d.apply(.found(try service("127.0.0.1:40000"))) else {
            Issue.record("no change")
            return
        }
        #expect(both.addresses.map(\.description) == ["127.0.0.1:40000", "[::1]:40000"])
        guard case .reachable(let v6)? = d.apply(.removed(name: "desk", interface: 1, ipv6: false)) else {
            Issue.record("no change")
            return
        }
        #expect(v6.preferred.description == "[::1]:40000")
    }

    @Test("A restart with a new key drops the old addresses; an unusable record is reported, not kept")
    func newRecord() throws {
        var d = ReceiverDirectory()
        _ = d.apply(.found(try service("127.0.0.1:40000", interface: 1)))
        var other = record
        other["fp"] = "ffff-ffff-ffff-ffff"
        guard case .reachable(let r)? = d.apply(.found(try service("127.0.0.1:40001", interface: 2, txt: other))) else {
            Issue.record("no change")
            return
        }
        #expect(r.addresses.count == 1 && r.announcement.fingerprint == "ffff-ffff-ffff-ffff")
        #expect(
            d.apply(.found(try service("127.0.0.1:1", txt: ["v": "9"], name: "new")))
                == .unusable(instance: "new", problem: "protocol version 9, this mouse3d speaks 1"))
        #expect(d.receivers.map(\.instance) == ["desk"])
    }

    @Test("Instances with no address left are forgotten; a flood of names holds at most 256, the stalest evicted")
    func bounded() throws {
        var d = ReceiverDirectory()
        for i in 0..<1000 {
            _ = d.apply(.found(try service("127.0.0.1:\(40000 + i)", name: "flood \(i)")))
            if i == 500 { _ = d.apply(.found(try service("127.0.0.1:39999", name: "desk"))) }
            if i % 10 == 0 { _ = d.apply(.found(try service("127.0.0.1:39998", name: "kept"))) }
        }
        #expect(d.count == ReceiverDirectory.maximumInstances, "\(d.count) held")
        #expect(d.evicted == 1000 + 2 - ReceiverDirectory.maximumInstances)
        let held = Set(d.receivers.map(\.instance))
        #expect(held.contains("kept"), "one heard from again and again stays")
        #expect(held.contains("flood 999") && !held.contains("flood 0"))
        #expect(!held.contains("desk"), "found once, 499 instances ago")
        for i in 0..<1000 { _ = d.apply(.removed(name: "flood \(i)", interface: 1, ipv6: false)) }
        _ = d.apply(.removed(name: "kept", interface: 1, ipv6: false))
        #expect(d.count == 0, "an instance with no address is forgotten: \(d.count) left")
    }
}

@Suite("Link probes")
struct LinkProbeTests {
    @Test("A probe is answered once, and only while its time is within 30 s of the receiver's clock")
    func freshness() throws {
        let pair = SealedPair()
        let opener = pair.opener()
        let key = LinkProbeKey(secret: pair.secret, senderID: pair.sender.id, receiverID: pair.receiver.id)
        let now = WallClock.nanoseconds()
        func probe(_ challenge: UInt8, at time: UInt64) -> [UInt8] {
            key.seal(
                LinkProbe(
                    isReply: false, id: pair.sender.id, challenge: Array(repeating: challenge, count: 16),
                    sentNanoseconds: time))
        }
        let fresh = probe(1, at: now - 1_000_000_000)
        #expect(fresh.withUnsafeBytes { opener.answerProbe($0, now: now) } != nil)
        #expect(
            fresh.withUnsafeBytes { opener.answerProbe($0, now: now + 1_000_000) } == nil, "a replay is not answered")
        #expect(probe(2, at: now - 31_000_000_000).withUnsafeBytes { opener.answerProbe($0, now: now) } == nil, "stale")
        #expect(
            probe(3, at: now + 31_000_000_000).withUnsafeBytes { opener.answerProbe($0, now: now) } == nil,
            "from the future")
        #expect(
            probe(4, at: now + 29_000_000_000).withUnsafeBytes { opener.answerProbe($0, now: now) } != nil,
            "within the skew allowed")
    }

    @Test("A probe verifies under its key only; every single-bit flip is refused")
    func tags() {
        let pair = SealedPair()
        let key = LinkProbeKey(secret: pair.secret, senderID: pair.sender.id, receiverID: pair.receiver.id)
        let probe = LinkProbe(isReply: false, id: pair.sender.id, challenge: Array(0..<16), sentNanoseconds: 42)
        let bytes = key.seal(probe)
        #expect(bytes.count == LinkProbe.byteCount)
        #expect(bytes.withUnsafeBytes { key.open($0) } == probe)
        let wrong = LinkProbeKey(
            secret: pair.secret.map { $0 ^ 1 }, senderID: pair.sender.id, receiverID: pair.receiver.id)
        #expect(bytes.withUnsafeBytes { wrong.open($0) } == nil)
        for bit in 0..<(bytes.count * 8) {
            var flipped = bytes
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(flipped.withUnsafeBytes { key.open($0) } == nil, "bit \(bit)")
        }
    }

    @Test(
        "A sealed receiver answers a paired sender's probes with the frames it accepted, refuses others, and counts nothing as a frame"
    )
    func answered() throws {
        let pair = SealedPair()
        let receiver = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: pair.opener())
        var sealer = pair.sealer()
        let socket = try UDPSocket(family: receiver.localAddress.family)
        for sequence in 0..<3 as Range<UInt64> {
            let datagram = try SealedPair.seal(&sealer, sequence)
            _ = try datagram.withUnsafeBytes { try socket.send($0, to: receiver.localAddress) }
        }
        let prober = LinkProber(senderID: pair.sender.id)
        try prober.track("desk", address: receiver.localAddress, secret: pair.secret, receiverID: pair.receiver.id)
        let stranger = LinkProber(senderID: PeerIdentity.generate(name: "x").id)
        try stranger.track("desk", address: receiver.localAddress, secret: pair.secret, receiverID: pair.receiver.id)
        try prober.probeAll(now: MonotonicClock.nanoseconds())
        try stranger.probeAll(now: MonotonicClock.nanoseconds())
        var frames = 0
        let end = MonotonicClock.nanoseconds() + 2_000_000_000
        while MonotonicClock.nanoseconds() < end && prober.quality(of: "desk")?.answered != 1 {
            try EventLoop.waitUntilReadable([receiver.descriptor] + prober.descriptors, timeoutNanoseconds: 10_000_000)
            try receiver.drain { if case .frame = $0 { frames += 1 } }
            try prober.readReplies(now: MonotonicClock.nanoseconds())
        }
        try EventLoop.waitUntilReadable(stranger.descriptors, timeoutNanoseconds: 100_000_000)
        try stranger.readReplies(now: MonotonicClock.nanoseconds())
        let quality = try #require(prober.quality(of: "desk"))
        #expect(
            quality.sent == 1 && quality.answered == 1 && quality.framesAccepted == 3 && quality.medianRoundTrip != nil)
        #expect(stranger.quality(of: "desk")?.answered == 0, "an unpaired sender's probe gets no reply")
        #expect(frames == 3 && receiver.totals.frames == 3 && receiver.probesAnswered == 1)
        #expect(receiver.refusals[.badLinkProbe] == 1)
    }
}
