import Mouse3DCore
import Mouse3DLinux

/// The first datagrams of a new session, authentic, held until its state is stored (bounded in
/// all, per claimed sender, and against copies).
struct HeldDatagrams {
    /// A held datagram, its source and when it arrived.
    struct Item {
        var bytes: [UInt8]
        var sender: SocketAddress
        var received: UInt64
    }

    /// Each claimed sender's held datagrams, in the order they came, with their place in the order
    /// of all (so that a store releases its sender's without a pass over everyone's, and the sender
    /// id is kept once per sender, not once per datagram).
    private var bySender: [[UInt8]: [(order: Int, item: Item)]] = [:]
    /// The held datagrams themselves: a copy of one (a replay, or the network's duplicate) is refused
    /// as replayed instead of being held twice (the epoch's replay window does not exist yet).
    private var copies: Set<[UInt8]> = []
    private var nextOrder = 0
    /// How many are held.
    private(set) var count = 0
    /// Most held at once; most for one claimed sender.
    let limit: Int, limitPerSender: Int

    init(limit: Int, limitPerSender: Int) {
        self.limit = limit
        self.limitPerSender = limitPerSender
    }

    /// Everything held, in the order it came (for tests and reports).
    var items: [Item] { bySender.values.joined().sorted { $0.order < $1.order }.map(\.item) }

    /// Holds `bytes` (claiming to be from `claimed`), or says why not: a copy of one held is
    /// `.replayed`; past a bound, `.notStored`.
    mutating func hold(_ bytes: [UInt8], claimed: [UInt8], from sender: SocketAddress, at now: UInt64) -> Refusal? {
        if copies.contains(bytes) { return .replayed }
        guard count < limit && bySender[claimed, default: []].count < limitPerSender else { return .notStored }
        bySender[claimed, default: []].append((nextOrder, Item(bytes: bytes, sender: sender, received: now)))
        nextOrder += 1
        count += 1
        copies.insert(bytes)
        return nil
    }

    /// The datagrams held for the claimed senders in `senders`, in the order they came, leaving the
    /// others held (a store releases only its own sender's: re-offering every held datagram at each
    /// store cost an AEAD open per datagram held, times the stores).
    mutating func take(claimedBy senders: Set<[UInt8]>) -> [Item] {
        var taken: [(order: Int, item: Item)] = []
        for sender in senders {
            if let theirs = bySender.removeValue(forKey: sender) { taken += theirs }
        }
        guard !taken.isEmpty else { return [] }
        count -= taken.count
        for entry in taken { copies.remove(entry.item.bytes) }
        if count == 0 {
            // The start is over: the warm-up's tables go (up to the bound's worth of entries).
            bySender = [:]
            copies = []
            nextOrder = 0
        }
        if senders.count > 1 { taken.sort { $0.order < $1.order } }
        return taken.map(\.item)
    }
}
