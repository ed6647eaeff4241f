import Mouse3DCore
import Mouse3DLinux

/// The paired peers of one role, one key file each (`senders/ID.key` or `receivers/ID.key` in the
/// configuration directory).
public struct PeerStore: Sendable {
    /// The configuration directory.
    public let base: String
    /// Which peers.
    public let role: PairedPeer.Role

    /// The store of `role` peers under `base`.
    public init(base: String, role: PairedPeer.Role) {
        self.base = base
        self.role = role
    }

    /// The folder holding the key files.
    public var directory: String { base + "/" + role.folder }

    /// The key file of the peer with `id`.
    public func path(of id: [UInt8]) -> String { directory + "/" + Hexadecimal.encode(id) + ".key" }
    /// The state file (epoch, sequence) of the peer with `id`.
    public func statePath(of id: [UInt8]) -> String { directory + "/" + Hexadecimal.encode(id) + ".state" }
    /// The lock file a sending process holds for its session with the peer with `id`.
    public func lockPath(of id: [UInt8]) -> String { directory + "/" + Hexadecimal.encode(id) + ".lock" }

    /// Takes the session lock of `peer` for this process (one sending process per pairing), then
    /// rereads its state under the lock (another process may have moved it on since it was loaded).
    /// Throws a message that says what to do when another process holds it.
    public func lockSession(of peer: PairedPeer) throws -> (lock: FileLock, peer: PairedPeer) {
        let lock: FileLock
        do {
            lock = try FileLock(path: lockPath(of: peer.id))
        } catch .held {
            throw ActionableError(
                "another mouse3d process is streaming to '\(peer.name)' with this identity (lock \(lockPath(of: peer.id))); "
                    + "one sending process per receiver: stop the other one first, or stream through it")
        } catch {
            throw ActionableError("cannot lock the session with '\(peer.name)': \(error)")
        }
        var current = peer
        let state = statePath(of: peer.id)
        do {
            // Written with the pairing and after every run: without it the next session number could
            // repeat one already used (and with it the keys and nonces of that session).
            guard let bytes = try SecretFile.read(path: state) else {
                throw ActionableError(
                    "the session state of '\(peer.name)' (\(state)) is missing, so a new session could repeat an old one; "
                        + "pair again to start over safely (`mouse3d pair` on the receiver, then `mouse3d pair HOST CODE` here)"
                )
            }
            try current.applyState(String(decoding: bytes, as: UTF8.self), path: state)
        } catch let error as ActionableError {
            throw error
        } catch {
            throw ActionableError(
                "\(error); the session state of '\(peer.name)' cannot be trusted: remove \(state) to start a new one")
        }
        return (lock, current)
    }

    /// Every readable peer, and a message for every key file that was refused.
    public func load() -> (peers: [PairedPeer], problems: [String]) {
        for folder in [base, directory] {
            do {
                try SecretFile.checkFolder(folder)
            } catch {
                return ([], ["\(error); no \(role.rawValue) is trusted until it is fixed"])
            }
        }
        guard let names = try? DirectoryListing.names(in: directory) else { return ([], []) }
        var peers: [PairedPeer] = []
        var problems: [String] = []
        for name in names.sorted() where name.hasSuffix(".key") {
            let path = directory + "/" + name
            do {
                guard let bytes = try SecretFile.read(path: path) else { continue }
                var peer = try PairedPeer(role: role, fileText: String(decoding: bytes, as: UTF8.self), path: path)
                let state = statePath(of: peer.id)
                if let stateBytes = try SecretFile.read(path: state) {
                    try peer.applyState(String(decoding: stateBytes, as: UTF8.self), path: state)
                }
                peers.append(peer)
            } catch {
                problems.append("\(error); this peer is ignored")
            }
        }
        return (peers, problems)
    }

    /// Writes (or replaces) the key and state files of `peer` (a new pairing): the key first. A
    /// state whose pairing tag is not its key's is then always older than the key (and is ignored,
    /// which is safe: that pairing's datagrams do not open under this key). The other order let a
    /// failure between the two writes leave the old key with the new pairing's fresh state, and
    /// the old pairing's captured datagrams would open again from zero.
    public func save(_ peer: PairedPeer) throws(SystemCallError) {
        try SecretFile.makeDirectory(directory)
        try SecretFile.write(path: path(of: peer.id), bytes: Array(peer.fileText.utf8))
        try SecretFile.write(path: statePath(of: peer.id), bytes: Array(peer.stateText.utf8))
    }

    /// Writes the state file of `peer` (its epoch and sequence) without touching its key.
    public func saveState(_ peer: PairedPeer) throws(SystemCallError) {
        try SecretFile.write(path: statePath(of: peer.id), bytes: Array(peer.stateText.utf8))
    }

    /// Removes the peers whose fingerprint, id or name is `selector`; returns them.
    public func revoke(_ selector: String) throws -> [PairedPeer] {
        let wanted = selector.lowercased()
        let chosen = load().peers.filter {
            $0.fingerprint == wanted || Hexadecimal.encode($0.id) == wanted.filter { $0 != "-" } || $0.name == selector
        }
        for peer in chosen {
            try FileSystem.remove(path(of: peer.id))
            try FileSystem.remove(statePath(of: peer.id))
            try FileSystem.remove(lockPath(of: peer.id))
        }
        return chosen
    }
}
