import Mouse3DCore
import Mouse3DLinux

/// The paired senders of a running `receive`: loaded at start, reloaded at once when a pairing is
/// added or revoked (inotify on the senders folder), and their epochs stored as they change.
/// Owned by the event loop's thread.
public final class ReceiverPairings {
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
    private var lastSave: UInt64 = 0
    private var savedMarks: [String: (UInt32, UInt64)] = [:]
    /// How often changed epochs are stored without a reason to store them at once.
    static let saveInterval: UInt64 = 10_000_000_000

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
        let (peers, problems) = store.load()
        for problem in problems { diagnostics.say(problem) }
        var floors: [[UInt8]: UInt64] = [:]
        for p in peers { floors[p.id] = p.nextSequence }
        opener = SealedStreamOpener(receiverID: identity.id, peers: peers, sequenceFloors: floors)
        for p in peers {
            known[p.fingerprint] = p
            savedMarks[p.fingerprint] = (p.epoch, p.nextSequence)
        }
        diagnostics.say("this receiver: '\(identity.name)', fingerprint \(identity.fingerprint); "
            + (peers.isEmpty
                ? "no paired senders yet: run `mouse3d pair` here, then `mouse3d pair \(FileSystem.hostName) CODE` on the sender"
                : "accepting sealed frames from \(peers.map { "'\($0.name)' (\($0.fingerprint))" }.joined(separator: ", "))"))
    }

    /// Rereads the senders when their folder changes, and stores epochs when due, on `loop`.
    public func attach(to loop: EventLoop) {
        loop.watch(watcher.descriptor) { [unowned self] in try reload() }
        loop.timer(deadline: { [unowned self] in lastSave + Self.saveInterval }) { [unowned self] now in saveMarks(now: now) }
    }

    /// Rereads the senders after a change in their folder; reports additions and revocations.
    public func reload() throws {
        guard try watcher.drain() else { return }
        let (peers, problems) = store.load()
        for problem in problems { diagnostics.say(problem) }
        opener.replacePeers(peers)
        var now: [String: PairedPeer] = [:]
        for p in peers { now[p.fingerprint] = p }
        for (f, p) in now where known[f] == nil { diagnostics.say("paired sender '\(p.name)' (\(f)) added: accepting its frames") }
        for (f, p) in known where now[f] == nil { diagnostics.say("sender '\(p.name)' (\(f)) revoked: its frames are refused from now on") }
        known = now
    }

    /// Says who was refused, with what the user can do about it.
    public func describeRefusal(source: SocketAddress, count: UInt64, reason: Refusal, claimed: [UInt8]?) -> String {
        let hint = reason == .unknownSender ? "sender \(claimed.map { Hexadecimal.encode($0) } ?? "?") is \(reason.advice)" : reason.advice
        return "refused \(count) datagram\(count == 1 ? "" : "s") from \(source): \(hint)"
    }

    /// A sender started a new session: store its epoch at once (replays of older ones stay refused).
    public func sessionStarted(_ peer: PairedPeer) {
        diagnostics.say("'\(peer.name)' (\(peer.fingerprint)): new session \(peer.epoch)")
        saveMarks(force: true)
    }

    /// Stores each sender's epoch and next sequence number if they changed (at most every 10 s unless
    /// forced), so that a restarted receiver refuses replays of what this one accepted.
    public func saveMarks(force: Bool = false, now: UInt64 = MonotonicClock.nanoseconds()) {
        guard force || now >= lastSave + Self.saveInterval else { return }
        lastSave = now
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
