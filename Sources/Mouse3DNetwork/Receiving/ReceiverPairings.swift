import Mouse3DCore
import Mouse3DLinux
import SystemPackage

/// The paired senders of a running `receive`: loaded at start, reloaded at once when a pairing is
/// added or revoked (inotify on the senders folder), and their epochs stored as they change.
/// Owned by the event loop's thread.
public final class ReceiverPairings: SessionStore {
    /// This receiver's identity.
    public let identity: PeerIdentity
    /// Where the paired senders are stored.
    public let store: PeerStore
    /// Opens their sealed datagrams.
    public let opener: SealedStreamOpener
    /// Tells when the senders' folder changes.
    public let watcher: DirectoryWatcher
    private let diagnostics: Diagnostics
    private var known: [String: PairedPeer] = [:]
    private var savedMarks: [String: (UInt32, UInt64)] = [:]
    /// Stores sessions in the background, off the event loop.
    private let writer: DurableFileWriter<PairedPeer>

    /// Loads the identity and paired senders under `base` (the configuration directory) and
    /// watches the senders' folder.
    public init(base: String, diagnostics: Diagnostics) throws {
        self.diagnostics = diagnostics
        identity = try loadIdentity(base: base, say: diagnostics.say)
        store = PeerStore(base: base, role: .sender)
        do {
            try SecretFile.makeDirectory(store.directory)
            watcher = try DirectoryWatcher(path: store.directory)
        } catch {
            throw ActionableError("cannot watch \(store.directory) for pairings: \(error)")
        }
        do {
            writer = try DurableFileWriter()
        } catch {
            throw ActionableError("cannot start the thread that stores sessions: \(error)")
        }
        SecretFile.removeStaleTemporaries(in: store.directory)
        let (peers, problems) = store.load()
        for problem in problems { diagnostics.say(problem) }
        // Each sender's stored next sequence is its floor (the opener takes it from the record).
        opener = SealedStreamOpener(receiverID: identity.id, peers: peers)
        for p in peers {
            known[p.fingerprint] = p
            savedMarks[p.fingerprint] = (p.epoch, p.nextSequence)
        }
        diagnostics.say(
            "this receiver: '\(TerminalText.escaped(identity.name))', fingerprint \(identity.fingerprint); "
                + (peers.isEmpty
                    ? "no paired senders yet: run `mouse3d pair` here, then `mouse3d pair \(FileSystem.hostName) CODE` on the sender"
                    : "accepting sealed frames from \(peers.map { "'\($0.name)' (\($0.fingerprint))" }.joined(separator: ", "))")
        )
    }

    /// Rereads the senders when their folder changes, on `loop`.
    public func attach(to loop: EventLoop) {
        loop.watch(watcher.descriptor) { [unowned self] in try reload() }
    }

    // Replay protection that survives SIGKILL and power loss (the opener asks, the receiver calls
    // these): a new epoch, and each stretch of sequence numbers, is stored before the first
    // datagram in it is accepted. Streams renew their reservation half-way through it in the
    // background, so no datagram waits for the disk; a store on the spot (after the writer's
    // queue) is for a new epoch after a failed background store, and for a stream that outran its
    // renewal.

    public var storesInBackground: Bool { true }

    public func storeInBackground(_ record: PairedPeer) -> Bool {
        // After a failure, nothing is tried for a second (a full disk is not written to per
        // datagram).
        guard !failures.backingOff(record.fingerprint, now: MonotonicClock.nanoseconds()) else { return false }
        writer.submit(path: store.statePath(of: record.id), bytes: Array(record.stateText.utf8), tag: record)
        return true
    }

    public func storeNow(_ record: PairedPeer) -> Bool {
        let now = MonotonicClock.nanoseconds()
        guard !failures.backingOff(record.fingerprint, now: now) else { return false }
        writer.waitUntilIdle()  // stored states only ever move forward
        do {
            try store.saveState(record)
            savedMarks[record.fingerprint] = (record.epoch, record.nextSequence)
            failures.succeeded(record.fingerprint)
            return true
        } catch {
            sayFailure(record, "\(error); its frames are refused until it can be stored", now: now)
            return false
        }
    }

    /// Readable when stores in the background have completed (``takeStored()``).
    public var storesCompleted: FileDescriptor { writer.completions.descriptor }

    /// The stores in the background completed since the last call, each with whether it was stored
    /// (failures said; a store of an earlier pairing of the sender left out), for
    /// ``AttitudeReceiver/sessionsStored(_:_:)``.
    public func takeStored() -> [(record: PairedPeer, stored: Bool)] {
        var done: [(record: PairedPeer, stored: Bool)] = []
        for completion in writer.takeCompletions() {
            if let error = completion.error {
                sayFailure(
                    completion.tag, "\(error); storing it again on the spot when needed",
                    now: MonotonicClock.nanoseconds())
                done.append((completion.tag, false))
            } else if known[completion.tag.fingerprint]?.secret == completion.tag.secret {
                savedMarks[completion.tag.fingerprint] = (completion.tag.epoch, completion.tag.nextSequence)
                done.append((completion.tag, true))
            }
        }
        return done
    }

    deinit { writer.stop() }

    /// Failed stores per sender: a second without trying after each, and one line per 10 s.
    struct StoreFailures {
        static let backoffNanoseconds: UInt64 = 1_000_000_000
        static let reportNanoseconds: UInt64 = 10_000_000_000
        var retryAt: [String: UInt64] = [:]
        var reported: [String: (at: UInt64, unsaid: Int)] = [:]

        func backingOff(_ fingerprint: String, now: UInt64) -> Bool { now < retryAt[fingerprint] ?? 0 }
        mutating func succeeded(_ fingerprint: String) { retryAt[fingerprint] = nil }
    }
    var failures = StoreFailures()

    /// Notes a failed store of `record`'s session and says so, at most once per 10 s per sender.
    func sayFailure(_ record: PairedPeer, _ detail: String, now: UInt64) {
        let f = record.fingerprint
        failures.retryAt[f] = now + StoreFailures.backoffNanoseconds
        if let last = failures.reported[f], now < last.at + StoreFailures.reportNanoseconds {
            failures.reported[f]!.unsaid += 1
            return
        }
        let unsaid = failures.reported[f]?.unsaid ?? 0
        failures.reported[f] = (now, 0)
        diagnostics.say(
            "cannot store the session of '\(record.name)' (\(detail))"
                + (unsaid > 0 ? " (\(unsaid) more failure\(unsaid == 1 ? "" : "s") since the last line)" : ""))
    }

    /// Rereads the senders after a change in their folder; reports additions and revocations.
    /// With `force` (SIGHUP), the folder is watched anew and reread whatever changed.
    public func reload(force: Bool = false) throws {
        let changed = try watcher.drain(relevant: { $0.hasSuffix(".key") })  // pairings, not session states
        if force { watcher.rewatch() }
        guard changed || force else { return }
        let (peers, problems) = store.load()
        for problem in problems { diagnostics.say(problem) }
        opener.replacePeers(peers)
        var now: [String: PairedPeer] = [:]
        for p in peers { now[p.fingerprint] = p }
        for (f, p) in now where known[f] == nil {
            diagnostics.say("paired sender '\(p.name)' (\(f)) added: accepting its frames")
        }
        for (f, p) in known where now[f] == nil {
            diagnostics.say("sender '\(p.name)' (\(f)) revoked: its frames are refused from now on")
            savedMarks[f] = nil
        }
        // A revoked sender's session state stays: if its key comes back (moved out and back, a
        // backup restored), the state's floor keeps its captured datagrams refused. A new pairing
        // of the same peer ignores it (the state names its pairing).
        known = now
    }

    /// Says who was refused, with what the user can do about it.
    public func describeRefusal(source: SocketAddress, count: UInt64, reason: Refusal, claimed: [UInt8]?) -> String {
        let hint =
            reason == .unknownSender
            ? "sender \(claimed.map { Hexadecimal.encode($0) } ?? "?") is \(reason.advice)" : reason.advice
        return "refused \(count) datagram\(count == 1 ? "" : "s") from \(source): \(hint)"
    }

    /// A sender started a new session (its epoch was stored before the datagram was accepted).
    public func sessionStarted(_ peer: PairedPeer) {
        diagnostics.say("'\(peer.name)' (\(peer.fingerprint)): new session \(peer.epoch)")
    }

    /// At a clean exit: stores each sender's exact epoch and next sequence number where they differ
    /// from what is stored (the reservations reach further ahead), so that a restarted receiver
    /// takes a sender that carries on at once, and refuses replays of what this one accepted. The
    /// store thread is stopped first (its queued stores done, its kept temporary files removed).
    public func saveMarks() {
        writer.stop()
        for mark in opener.highWaterMarks {
            let f = mark.peer.fingerprint
            if let saved = savedMarks[f], saved == (mark.epoch, mark.nextSequence) { continue }
            var peer = mark.peer
            peer.epoch = mark.epoch
            peer.nextSequence = mark.nextSequence
            do {
                try store.saveState(peer)
                savedMarks[f] = (mark.epoch, mark.nextSequence)
            } catch {
                diagnostics.say("cannot store the session of '\(peer.name)': \(error)")
            }
        }
    }
}
