import Mouse3DCore
import Mouse3DLinux

/// Opens sealed datagrams from paired senders: finds the sender by id, verifies the tag under the
/// key of the datagram's epoch and generation, and only then checks the sequence against the
/// sender's replay window. Owned by one thread.
public final class SealedStreamOpener {
    /// Why a datagram was refused.
    public enum Refusal: String, Error, Sendable, CaseIterable {
        case wrongSize = "wrong size"
        case notMouse3D = "not mouse3d"
        case unsealed = "unsealed"
        case unknownSender = "unknown sender"
        case badTag = "bad tag"
        case staleEpoch = "stale session"
        case replayed = "replayed"
        case invalidAngles = "invalid angles"
    }

    /// A datagram that verified.
    public struct Opened: Sendable {
        /// Its contents.
        public var datagram: AttitudeDatagram
        /// The paired sender.
        public var peer: PairedPeer
        /// True when this datagram started a new epoch (the sender restarted): worth storing.
        public var startedEpoch: Bool
    }

    /// One paired sender's state (a class: updated in place for every datagram).
    private final class Session {
        var peer: PairedPeer
        /// The epoch being accepted, and its replay window.
        var epoch: UInt32
        var window: ReplayWindow
        /// In the stored epoch after a restart: sequences below this were (or may have been) seen.
        var floor: UInt64
        /// Keys of `keysEpoch` by generation (at most two).
        var keys: [UInt64: [UInt8]] = [:]
        var keysEpoch: UInt32
        /// The sender's id (computed once: it is a hash).
        let id: [UInt8]

        init(peer: PairedPeer, floor: UInt64) {
            self.peer = peer
            id = peer.id
            epoch = peer.epoch
            window = ReplayWindow()
            self.floor = floor
            keysEpoch = peer.epoch
        }
    }

    /// This receiver's id.
    public let receiverID: [UInt8]
    /// By sender id (its 8 bytes as a number: no allocation per lookup).
    private var sessions: [UInt64: Session] = [:]
    private var plaintext = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
    private var nonce = [UInt8](repeating: 0, count: 12)

    /// An opener for `peers` (the receiver's paired senders). `sequenceFloors` holds, per sender id,
    /// the next sequence a stored epoch may still use (from the last run).
    public init(receiverID: [UInt8], peers: [PairedPeer], sequenceFloors: [[UInt8]: UInt64] = [:]) {
        self.receiverID = receiverID
        replacePeers(peers, sequenceFloors: sequenceFloors)
    }

    /// The paired senders now known.
    public var peers: [PairedPeer] { sessions.values.map(\.peer) }

    /// Replaces the set of paired senders (after a pairing or revocation): senders no longer listed
    /// are refused from now on; unchanged ones keep their windows.
    public func replacePeers(_ peers: [PairedPeer], sequenceFloors: [[UInt8]: UInt64] = [:]) {
        var next: [UInt64: Session] = [:]
        for peer in peers {
            let key = peer.id.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            if let existing = sessions[key], existing.peer.secret == peer.secret, existing.peer.publicKey == peer.publicKey {
                existing.peer.name = peer.name
                next[key] = existing
            } else {
                next[key] = Session(peer: peer, floor: sequenceFloors[peer.id] ?? 0)
            }
        }
        sessions = next
    }

    /// For each sender: its epoch and the next sequence number it may use in it (to store at exit,
    /// so that a restarted receiver refuses replays of what it already accepted).
    public var highWaterMarks: [(peer: PairedPeer, epoch: UInt32, nextSequence: UInt64)] {
        sessions.values.map { s in (s.peer, s.epoch, max(s.floor, s.window.newest.map { $0 + 1 } ?? 0)) }
    }

    /// The paired sender a datagram claims to come from (before any check), for messages.
    public func claimedSenderID(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count >= SealedDatagramLayout.headerBytes else { return nil }
        return Array(bytes[SealedDatagramLayout.senderIDOffset..<SealedDatagramLayout.senderIDOffset + SealedDatagramLayout.senderIDBytes])
    }

    /// Checks and opens one datagram.
    public func open(_ bytes: UnsafeRawBufferPointer) -> Result<Opened, Refusal> {
        guard bytes.count >= 4, bytes[0] == AttitudeDatagram.magic.0, bytes[1] == AttitudeDatagram.magic.1,
            bytes[2] == AttitudeDatagram.version
        else { return .failure(bytes.count == AttitudeFrame.byteCount ? .unsealed : .notMouse3D) }
        guard bytes[3] == SealedDatagramLayout.kind else {
            return .failure(bytes[3] == AttitudeDatagram.plainKind ? .unsealed : .notMouse3D)
        }
        guard bytes.count == SealedDatagramLayout.byteCount else { return .failure(.wrongSize) }
        guard let session = sessions[bytes.loadUnaligned(fromByteOffset: SealedDatagramLayout.senderIDOffset, as: UInt64.self)] else {
            return .failure(.unknownSender)
        }
        let id = session.id
        let sequence = bytes.loadLittleEndianUInt64(at: 8)
        let epoch = bytes.loadLittleEndianUInt32(at: SealedDatagramLayout.epochOffset)
        guard epoch >= session.epoch else { return .failure(.staleEpoch) }
        if epoch == session.epoch && sequence < session.floor { return .failure(.replayed) }
        if epoch == session.epoch && !session.window.wouldAccept(sequence) { return .failure(.replayed) }

        // Keys of this epoch (a newer epoch's key is derived without adopting it until it verifies).
        let generation = SealedDatagramLayout.generation(of: sequence)
        let key: [UInt8]
        if epoch == session.keysEpoch, let cached = session.keys[generation] {
            key = cached
        } else {
            key = SessionKey.derive(secret: session.peer.secret, senderID: id, receiverID: receiverID, epoch: epoch, generation: generation)
        }
        SessionKey.write(sequence: sequence, into: &nonce)
        let header = SealedDatagramLayout.headerBytes, tagStart = header + SealedDatagramLayout.payloadBytes
        let authentic = key.withUnsafeBytes { key in
            nonce.withUnsafeBytes { nonce in
                plaintext.withUnsafeMutableBytes { plain in
                    ChaCha20Poly1305.open(
                        key: key, nonce: nonce, associatedData: UnsafeRawBufferPointer(rebasing: bytes[0..<header]),
                        ciphertext: UnsafeRawBufferPointer(rebasing: bytes[header..<tagStart]),
                        tag: UnsafeRawBufferPointer(rebasing: bytes[tagStart...]),
                        plaintext: UnsafeMutableRawBufferPointer(rebasing: plain[16..<40]))
                }
            }
        }
        guard authentic else { return .failure(.badTag) }

        // Authentic: now the epoch may advance and the window move.
        var started = false
        if epoch > session.epoch {
            session.epoch = epoch
            session.window = ReplayWindow()
            session.floor = 0
            session.peer.epoch = epoch
            started = true
        }
        if session.keysEpoch != epoch {
            session.keys.removeAll()
            session.keysEpoch = epoch
        }
        if session.keys[generation] == nil {
            if session.keys.count >= 2, let oldest = session.keys.keys.min() { session.keys[oldest] = nil }
            session.keys[generation] = key
        }
        guard session.window.accept(sequence) else { return .failure(.replayed) }

        for i in 0..<16 { plaintext[i] = bytes[i] }
        plaintext[3] = AttitudeDatagram.plainKind
        switch AttitudeDatagram.decode(plaintext) {
        case .success(let datagram): return .success(Opened(datagram: datagram, peer: session.peer, startedEpoch: started))
        case .failure: return .failure(.invalidAngles)
        }
    }
}
