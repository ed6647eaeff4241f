import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Testing

/// An output that keeps what it is given.
final class CollectingOutput: AttitudeSink {
    var updates: [AttitudeUpdate] = []
    var ended: [StreamLabel] = []
    var batches = 0
    var finished = 0
    func write(_ update: AttitudeUpdate) throws { updates.append(update) }
    func endOfBatch() throws { batches += 1 }
    func streamEnded(_ stream: StreamLabel) { ended.append(stream) }
    func finish() { finished += 1 }
}

/// A fresh private directory.
func temporaryDirectory() -> String {
    var template = Array("/tmp/mouse3d-test-XXXXXX".utf8CString)
    return String(cString: mkdtemp(&template)!)
}

@Suite("Receiving and sending pipelines on the event loop")
struct PipelineTests {
    func address(_ text: String = "127.0.0.1:0") throws -> SocketAddress {
        try SocketAddress.resolve(text, defaultPort: 0, passive: false)
    }

    @Test("StreamReception: frames become updates of one labelled stream, silence ends it, the summary counts them")
    func reception() throws {
        let loop = try EventLoop(signals: [])
        let receiver = try AttitudeReceiver(listeningOn: address(), format: .datagram)
        let output = CollectingOutput()
        let reception = StreamReception(
            receiver: receiver, pairings: nil, outputs: AttitudePipeline(outputs: [output]), printsStatistics: false,
            measuresLatency: true, diagnostics: Diagnostics(quiet: true))
        reception.attach(to: loop)
        let streamer = try AttitudeStreamer(peers: [receiver.localAddress], format: .datagram, streamID: 0x2a)
        for i in 0..<20 {
            try streamer.send(
                AttitudeFrame(roll: Float(i) * 0.01, pitch: 0, yaw: 0), buttons: [.clutch],
                now: MonotonicClock.nanoseconds())
        }
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { output.updates.count == 20 }
        #expect(output.updates.map(\.sequence) == Array(0..<20))
        #expect(output.updates.map(\.frame.roll) == (0..<20).map { Float($0) * 0.01 })
        let label = output.updates[0].stream
        #expect(output.updates.allSatisfy { $0.stream === label }, "one label object per stream")
        #expect(
            label.stream == "2a" && label.sender.hasPrefix("127.0.0.1:")
                && label.description == "\(label.sender) stream 2a")
        #expect(output.batches >= 1)
        // 500 ms of silence: the stream ends at the outputs.
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { !output.ended.isEmpty }
        #expect(output.ended.count == 1 && output.ended[0] === label)
        let summary = reception.finish()
        #expect(summary[0].hasPrefix("summary: frames 20, dropped 0, lost 0, reordered 0, senders 1"), "\(summary)")
        #expect(summary.count == 2 && summary[1].hasPrefix("latency send→output:"))
        #expect(output.finished == 1)
    }

    @Test("StreamReception: with a warm-up, latency counts only frames received that long after the first")
    func latencyWarmUp() throws {
        let loop = try EventLoop(signals: [])
        let receiver = try AttitudeReceiver(listeningOn: address(), format: .datagram)
        let output = CollectingOutput()
        let reception = StreamReception(
            receiver: receiver, pairings: nil, outputs: AttitudePipeline(outputs: [output]), printsStatistics: false,
            measuresLatency: true, latencyWarmUpNanoseconds: 300_000_000, diagnostics: Diagnostics(quiet: true))
        reception.attach(to: loop)
        let streamer = try AttitudeStreamer(peers: [receiver.localAddress], format: .datagram, streamID: 7)
        func send(_ count: Int) throws {
            for _ in 0..<count {
                try streamer.send(
                    AttitudeFrame(roll: 0, pitch: 0, yaw: 0), buttons: [], now: MonotonicClock.nanoseconds())
            }
        }
        try send(6)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { output.updates.count == 6 }
        MonotonicClock.sleep(nanoseconds: 350_000_000)
        try send(4)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { output.updates.count == 10 }
        let summary = reception.finish()
        #expect(summary.count == 2, "\(summary)")
        #expect(summary.last?.hasSuffix("(4 frames) (after the first 6 frames, the warm-up)") == true, "\(summary)")
    }

    @Test(
        "StreamReception: a fast stream's reads are coalesced on a timer, nothing lost or reordered, and the socket wakes the loop again once it stops"
    )
    func coalescedReads() throws {
        let loop = try EventLoop(signals: [])
        let receiver = try AttitudeReceiver(listeningOn: address(), format: .datagram)
        let output = CollectingOutput()
        // Slow enough that a busy machine's scheduling does not decide it: read every 2 ms while
        // coalescing, decided every 10 ms.
        let reception = StreamReception(
            receiver: receiver, pairings: nil, outputs: AttitudePipeline(outputs: [output]), printsStatistics: false,
            measuresLatency: false, coalescing: WakeUpCoalescing(interval: 2_000_000, window: 10_000_000),
            diagnostics: Diagnostics(quiet: true))
        reception.attach(to: loop)
        // Four streams, a frame each every 250 µs (16,000 frames/s), sent from the loop's own timer:
        // each send makes the socket wake the loop, until reads are coalesced.
        let streamers = try (1...4).map {
            try AttitudeStreamer(peers: [receiver.localAddress], format: .datagram, streamID: UInt32($0))
        }
        let perStream = 600
        var sent = 0
        var nextSend = MonotonicClock.nanoseconds()
        loop.timer(deadline: { sent < perStream * 4 ? nextSend : nil }) { now in
            for streamer in streamers {
                try streamer.send(
                    AttitudeFrame(roll: Float(sent / 4) * 1e-3, pitch: 0, yaw: 0), buttons: [], now: now)
                sent += 1
            }
            nextSend = now + 250_000
        }
        var coalescedWhileSending = false
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 20_000_000_000) {
            if reception.coalescesReads && sent < perStream * 4 { coalescedWhileSending = true }
            return output.updates.count == perStream * 4
        }
        #expect(coalescedWhileSending, "reads were never coalesced")
        #expect(reception.coalescingPeriods >= 1)
        for id in 1...4 {
            let stream = output.updates.filter { $0.stream.stream == String(id, radix: 16) }
            #expect(stream.map(\.sequence) == (0..<perStream).map(UInt64.init), "stream \(id): lost or reordered")
            #expect(stream.map(\.frame.roll) == (0..<perStream).map { Float($0) * 1e-3 })
        }
        // Quiet now: two timed reads that find nothing give the socket back its wake-ups, and one sent then
        // is read.
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { !reception.coalescesReads }
        #expect(!reception.coalescesReads, "still reading on a timer with nothing coming")
        try streamers[0].send(AttitudeFrame(roll: 1, pitch: 0, yaw: 0), buttons: [], now: MonotonicClock.nanoseconds())
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            output.updates.count == perStream * 4 + 1
        }
        #expect(output.updates.last?.frame.roll == 1)
        let summary = reception.finish()
        #expect(
            summary[0].hasPrefix("summary: frames \(perStream * 4 + 1), dropped 0, lost 0, reordered 0"), "\(summary)")
    }

    @Test("StreamReception: refusals are counted by typed reason and named in the summary")
    func refusals() throws {
        let loop = try EventLoop(signals: [])
        let receiver = try AttitudeReceiver(listeningOn: address(), format: .datagram)
        let reception = StreamReception(
            receiver: receiver, pairings: nil, outputs: AttitudePipeline(), printsStatistics: false,
            measuresLatency: false,
            diagnostics: Diagnostics(quiet: true))
        reception.attach(to: loop)
        let socket = try UDPSocket(family: receiver.localAddress.family)
        for junk in [[UInt8](repeating: 0, count: 3), [UInt8](repeating: 0, count: 40)] {
            _ = try junk.withUnsafeBytes { try socket.send($0, to: receiver.localAddress) }
        }
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { receiver.refusals.total == 2 }
        #expect(receiver.refusals[.wrongSize] == 1 && receiver.refusals[.badMagic] == 1)
        #expect(reception.finish()[0].hasSuffix("(dropped: bad magic 1, wrong size 1)"))
    }

    @Test(
        "StreamerOutput: one datagram per update; behind a PacedOutput only the latest on each tick, and a log's last one at its end"
    )
    func streamerOutput() throws {
        let receiver = try AttitudeReceiver(listeningOn: address(), format: .datagram)
        func received() throws -> [AttitudeUpdate] {
            var frames: [AttitudeUpdate] = []
            while try EventLoop.waitUntilReadable([receiver.descriptor], timeoutNanoseconds: 100_000_000) {
                try receiver.drain { if case .frame(let f) = $0 { frames.append(f) } }
            }
            return frames
        }
        func update(_ i: Int) -> AttitudeUpdate {
            AttitudeUpdate(
                stream: .local, sequence: UInt64(i), buttons: [],
                frame: AttitudeFrame(roll: Float(i) * 0.1, pitch: 0, yaw: 0),
                receivedNanoseconds: 0)
        }
        let each = StreamerOutput(
            streamer: try AttitudeStreamer(peers: [receiver.localAddress], format: .datagram), report: { _ in })
        for i in 0..<5 { try each.write(update(i)) }
        #expect(each.nextDeadline == nil)
        #expect(try received().count == 5)

        let paced = PacedOutput(
            StreamerOutput(
                streamer: try AttitudeStreamer(peers: [receiver.localAddress], format: .datagram), report: { _ in }),
            hertz: 10,
            start: MonotonicClock.nanoseconds())
        for i in 0..<5 { try paced.write(update(i)) }
        #expect(try received().isEmpty, "nothing before a tick")
        let due = try #require(paced.nextDeadline)
        try paced.tick(now: due)
        let first = try received()
        #expect(first.map(\.frame.roll) == [0.4], "only the latest")
        #expect(paced.nextDeadline == nil, "nothing new to send")
        try paced.write(update(7))
        try paced.sourceEnded()
        #expect(try received().map(\.frame.roll) == [Float(7) * 0.1])
    }

    @Test(
        "A session state written for an earlier pairing of the same peer (a store in flight across revoke and pair) is ignored by the new pairing; a state without the pairing line still applies"
    )
    func stateBoundToItsPairing() throws {
        let store = PeerStore(base: temporaryDirectory() + "/mouse3d", role: .sender)
        try SecretFile.makeDirectory(store.directory)
        let sender = PeerIdentity.generate(name: "deck")
        var old = PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: [UInt8](repeating: 1, count: 32),
            address: nil, epoch: 9, pairedAt: "t")
        old.nextSequence = 5000
        try store.save(old)
        #expect(store.load().peers.map(\.epoch) == [9], "its own state applies")
        // Revoked and paired again (a new secret), then the old pairing's store lands.
        _ = try store.revoke("deck")
        let again = PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: [UInt8](repeating: 2, count: 32),
            address: nil, epoch: 0, pairedAt: "t")
        try store.save(again)
        try store.saveState(old)
        let loaded = try #require(store.load().peers.first)
        #expect(
            loaded.epoch == 0 && loaded.nextSequence == 0,
            "the earlier pairing's state is not this one's floor: \(loaded.epoch) \(loaded.nextSequence)")
        // A state file from before the pairing line existed.
        try SecretFile.write(path: store.statePath(of: again.id), bytes: Array("epoch = 4\nnext_sequence = 77\n".utf8))
        let legacy = try #require(store.load().peers.first)
        #expect(legacy.epoch == 4 && legacy.nextSequence == 77)
    }

    @Test(
        "A pairing's key is written before its state, so a state of another pairing is always older than the key (a failure between the two writes cannot give the old key a fresh state)"
    )
    func keyBeforeState() throws {
        let store = PeerStore(base: temporaryDirectory() + "/mouse3d", role: .sender)
        let sender = PeerIdentity.generate(name: "deck")
        var old = PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: [UInt8](repeating: 1, count: 32),
            address: nil, epoch: 9, pairedAt: "t")
        old.nextSequence = 5000
        try store.save(old)
        // Paired again, and the second write fails: a directory stands where the state goes.
        let again = PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: [UInt8](repeating: 2, count: 32),
            address: nil, epoch: 0, pairedAt: "t")
        let state = store.statePath(of: again.id)
        try FileSystem.remove(state)
        #expect(mkdir(state, 0o700) == 0 && mkdir(state + "/x", 0o700) == 0)
        #expect(throws: SystemCallError.self) { try store.save(again) }
        // The first write was the key: the new pairing's key is there, with no state of the old one.
        rmdir(state + "/x")
        rmdir(state)
        try store.saveState(old)  // and say the old pairing's state comes back (a store in flight)
        let loaded = try #require(store.load().peers.first)
        #expect(loaded.secret == again.secret, "the key written first is the new one")
        #expect(loaded.secret == again.secret && loaded.epoch == 0)
    }

    @Test(
        "A revoked sender's state stays: its key moved out and back keeps the replay floor (captured datagrams stay refused)"
    )
    func revokedStateKept() throws {
        let base = temporaryDirectory() + "/mouse3d"
        let loop = try EventLoop(signals: [])
        let pairings = try ReceiverPairings(base: base, diagnostics: Diagnostics(quiet: true))
        pairings.attach(to: loop)
        let sender = PeerIdentity.generate(name: "deck")
        var record = PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: [UInt8](repeating: 7, count: 32),
            address: nil, epoch: 3, pairedAt: "t")
        record.nextSequence = 5000
        try pairings.store.save(record)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            !pairings.opener.highWaterMarks.isEmpty
        }
        let floor = pairings.opener.highWaterMarks.map { "\($0.epoch)/\($0.nextSequence)" }
        #expect(floor.count == 1 && floor[0].hasPrefix("3/"), "\(floor)")
        let keyPath = pairings.store.path(of: record.id)
        let key = try FileContents.read(path: keyPath)
        try FileSystem.remove(keyPath)  // the key moved out of the folder: a revocation, as the receiver sees it
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { pairings.opener.highWaterMarks.isEmpty }
        #expect(pairings.opener.highWaterMarks.isEmpty, "revoked")
        let state = pairings.store.statePath(of: record.id)
        #expect(FileSystem.exists(state), "the state stays after the revocation")
        try SecretFile.write(path: keyPath, bytes: key)  // the key comes back
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            !pairings.opener.highWaterMarks.isEmpty
        }
        let back = pairings.opener.highWaterMarks.map { "\($0.epoch)/\($0.nextSequence)" }
        #expect(back == floor, "the floor is back: \(back) against \(floor) (a key without its state starts from 0/0)")
    }

    @Test(
        "The senders' folder moved away and made anew (every pairing dropped at once): the old senders are refused, a new pairing in the new folder is accepted"
    )
    func sendersFolderReplaced() throws {
        let base = temporaryDirectory() + "/mouse3d"
        let loop = try EventLoop(signals: [])
        let pairings = try ReceiverPairings(base: base, diagnostics: Diagnostics(quiet: true))
        pairings.attach(to: loop)
        func record(_ name: String) -> PairedPeer {
            PairedPeer(
                role: .sender, name: name, publicKey: PeerIdentity.generate(name: name).publicKey,
                secret: [UInt8](repeating: 7, count: 32),
                address: nil, epoch: 1, pairedAt: "t")
        }
        try pairings.store.save(record("old"))
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            pairings.opener.highWaterMarks.count == 1
        }
        #expect(pairings.opener.highWaterMarks.map(\.peer.name) == ["old"])
        let folder = pairings.store.directory
        #expect(rename(folder, folder + ".old") == 0 && mkdir(folder, 0o700) == 0)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { pairings.opener.highWaterMarks.isEmpty }
        #expect(pairings.opener.highWaterMarks.isEmpty, "the old pairing is gone with its folder")
        try pairings.store.save(record("new"))
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            !pairings.opener.highWaterMarks.isEmpty
        }
        #expect(pairings.opener.highWaterMarks.map(\.peer.name) == ["new"], "the new folder is watched")
        _ = try FileSystem.remove(
            folder + "/" + (try DirectoryListing.names(in: folder).first { $0.hasSuffix(".key") } ?? "x"))
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { pairings.opener.highWaterMarks.isEmpty }
        #expect(pairings.opener.highWaterMarks.isEmpty, "a revocation in the new folder is seen")
    }

    @Test(
        "ReceiverPairings: a pairing stored while running is accepted at once, through the loop's watch on its folder")
    func pairingsFollowTheFolder() throws {
        let base = temporaryDirectory() + "/mouse3d"
        let loop = try EventLoop(signals: [])
        let pairings = try ReceiverPairings(base: base, diagnostics: Diagnostics(quiet: true))
        pairings.attach(to: loop)
        let sender = PeerIdentity.generate(name: "deck")
        #expect(pairings.opener.highWaterMarks.isEmpty)
        let record = PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: [UInt8](repeating: 7, count: 32),
            address: nil, epoch: 0,
            pairedAt: "test")
        try pairings.store.save(record)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) {
            !pairings.opener.highWaterMarks.isEmpty
        }
        #expect(pairings.opener.highWaterMarks.map(\.peer.fingerprint) == [record.fingerprint])
        #expect(
            pairings.describeRefusal(source: try address("127.0.0.1:9"), count: 2, reason: .badTag, claimed: nil)
                == "refused 2 datagrams from 127.0.0.1:9: \(Refusal.badTag.advice)")
        #expect(
            pairings.describeRefusal(
                source: try address("127.0.0.1:9"), count: 1, reason: .unknownSender, claimed: [0xab, 0xcd])
                == "refused 1 datagram from 127.0.0.1:9: sender abcd is not paired here; run `mouse3d pair` to pair it")
    }

    @Test(
        "SealedTargets: each run takes a new epoch under a lock, stored before the first frame; no paired receiver is a clear error"
    )
    func sealedTargetsEpochs() throws {
        let base = temporaryDirectory() + "/mouse3d"
        #expect(throws: ActionableError.self) {
            _ = try SealedTargets.choose(
                [], pairCode: nil, base: base, defaultPort: 24930, pairingPort: 24931,
                diagnostics: Diagnostics(quiet: true))
        }
        let receiver = PeerIdentity.generate(name: "desk")
        let store = PeerStore(base: base, role: .receiver)
        try store.save(
            PairedPeer(
                role: .receiver, name: "desk", publicKey: receiver.publicKey, secret: [UInt8](repeating: 3, count: 32),
                address: "127.0.0.1:24930",
                epoch: 4, pairedAt: "test"))
        func choose(_ to: [String]) throws -> [SealedTargets] {
            try SealedTargets.choose(
                to, pairCode: nil, base: base, defaultPort: 24930, pairingPort: 24931,
                diagnostics: Diagnostics(quiet: true))
        }
        var first: [SealedTargets]? = try choose([])
        let firstEpoch = try #require(first?.first?.peer.epoch)
        #expect(firstEpoch > 4, "after the stored epoch, and not below the clock's floor")
        #expect(store.load().peers.map(\.epoch) == [firstEpoch], "stored before use")
        #expect(first?.first?.address == (try address("127.0.0.1:24930")))
        #expect(throws: ActionableError.self, "a second session while the first holds the lock") {
            _ = try choose(["desk"])
        }
        first = nil  // the run ends: its lock is released
        let second = try choose(["desk"])
        #expect(second.map(\.peer.epoch) == [firstEpoch + 1] || (second.first?.peer.epoch ?? 0) > firstEpoch + 1)
        #expect(store.load().peers.map(\.epoch) == second.map(\.peer.epoch))
    }

    @Test("A key folder others may change is refused like a key file others may read, with the chmod that fixes it")
    func folderModes() throws {
        let base = temporaryDirectory() + "/mouse3d"
        _ = try PeerIdentity.loadOrCreate(in: base)
        let store = PeerStore(base: base, role: .sender)
        try store.save(
            PairedPeer(
                role: .sender, name: "deck", publicKey: PeerIdentity.generate(name: "d").publicKey,
                secret: [UInt8](repeating: 1, count: 32),
                address: nil, epoch: 0, pairedAt: "t"))
        #expect(store.load().peers.count == 1)
        #expect(chmod(store.directory, 0o770) == 0)
        let (peers, problems) = store.load()
        #expect(
            peers.isEmpty && problems.count == 1 && problems[0].contains("run `chmod 700 \(store.directory)`"),
            "\(problems)")
        #expect(chmod(store.directory, 0o700) == 0 && chmod(base, 0o757) == 0)
        #expect(store.load().peers.isEmpty)
        #expect(throws: SecretFile.Problem.self) { _ = try PeerIdentity.loadOrCreate(in: base) }
        #expect(chmod(base, 0o700) == 0)
        #expect(store.load().peers.count == 1)
    }
}
