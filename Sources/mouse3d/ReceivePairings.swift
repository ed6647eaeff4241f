import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// The paired senders of a running `receive`: loaded at start, reloaded at once when a pairing is
/// added or revoked (inotify on the senders folder), and their epochs stored as they change.
final class ReceivePairings {
    let identity: PeerIdentity
    let store: PeerStore
    let opener: SealedStreamOpener
    let watcher: DirectoryWatcher
    private let diagnostics: Diagnostics
    private var known: [String: PairedPeer] = [:]
    private var lastSave: UInt64 = 0
    private var savedMarks: [String: (UInt32, UInt64)] = [:]

    init(base: String, diagnostics: Diagnostics) throws {
        self.diagnostics = diagnostics
        identity = try loadIdentity(base: base, say: diagnostics.say)
        store = PeerStore(base: base, role: .sender)
        do {
            try SecretFile.makeDirectory(store.directory)
            watcher = try DirectoryWatcher(path: store.directory)
        } catch {
            throw CommandFailure("cannot watch \(store.directory) for pairings: \(error)")
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

    /// Rereads the senders after a change in their folder; reports additions and revocations.
    func reload() throws {
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
    func describeRefusal(source: SocketAddress, count: UInt64, reason: String, claimed: [UInt8]?) -> String {
        let hint: String
        switch reason {
        case SealedStreamOpener.Refusal.unsealed.rawValue:
            hint = "unsealed frames; pair that sender (`mouse3d pair`), or accept unauthenticated frames with receive --insecure"
        case SealedStreamOpener.Refusal.unknownSender.rawValue:
            let id = claimed.map { Hexadecimal.encode($0) } ?? "?"
            hint = "sender \(id) is not paired here; run `mouse3d pair` to pair it"
        case SealedStreamOpener.Refusal.badTag.rawValue:
            hint = "authentication failed (forged, damaged, or a stale key: pair again if it is yours)"
        case SealedStreamOpener.Refusal.staleEpoch.rawValue:
            hint = "an old session (a replay, or the sender's key file was restored from an older copy: pair again)"
        case "rate limited":
            hint = "too many refused datagrams: this source's traffic is dropped unread for now"
        default:
            hint = reason
        }
        return "refused \(count) datagram\(count == 1 ? "" : "s") from \(source): \(hint)"
    }

    /// A sender started a new session: store its epoch at once (replays of older ones stay refused).
    func sessionStarted(_ peer: PairedPeer) {
        diagnostics.say("'\(peer.name)' (\(peer.fingerprint)): new session \(peer.epoch)")
        saveMarks(force: true)
    }

    /// Stores each sender's epoch and next sequence number if they changed (at most every 10 s unless
    /// forced), so that a restarted receiver refuses replays of what this one accepted.
    func saveMarks(force: Bool = false, now: UInt64 = MonotonicClock.nanoseconds()) {
        guard force || now >= lastSave + 10_000_000_000 else { return }
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
