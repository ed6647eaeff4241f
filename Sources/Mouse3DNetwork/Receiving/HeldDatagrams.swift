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
        /// The sender id it claims (whose store releases it).
        var claimed: [UInt8]
    }

    private(set) var items: [Item] = []
    /// The held datagrams themselves: a copy of one (a replay, or the network's duplicate) is refused
    /// as replayed instead of being held twice (the epoch's replay window does not exist yet).
    private var copies: Set<[UInt8]> = []
    /// How many are held per claimed sender id.
    private var perSender: [[UInt8]: Int] = [:]
    /// Most held at once; most for one claimed sender.
    let limit: Int, limitPerSender: Int

    init(limit: Int, limitPerSender: Int) {
        self.limit = limit
        self.limitPerSender = limitPerSender
    }

    /// Holds `bytes` (claiming to be from `claimed`), or says why not: a copy of one held is
    /// `.replayed`; past a bound, `.notStored`.
    mutating func hold(_ bytes: [UInt8], claimed: [UInt8], from sender: SocketAddress, at now: UInt64) -> Refusal? {
        if copies.contains(bytes) { return .replayed }
        guard items.count < limit && perSender[claimed, default: 0] < limitPerSender else { return .notStored }
        items.append(Item(bytes: bytes, sender: sender, received: now, claimed: claimed))
        copies.insert(bytes)
        perSender[claimed, default: 0] += 1
        return nil
    }

    /// The datagrams held for the claimed senders in `senders`, in order, leaving the others held
    /// (a store releases only its own sender's: re-offering every held datagram at each store cost
    /// an AEAD open per datagram held, times the stores).
    mutating func take(claimedBy senders: Set<[UInt8]>) -> [Item] {
        guard !senders.isEmpty, !items.isEmpty else { return [] }
        var taken: [Item] = []
        var kept: [Item] = []
        kept.reserveCapacity(items.count)
        for item in items {
            if senders.contains(item.claimed) {
                taken.append(item)
                copies.remove(item.bytes)
            } else {
                kept.append(item)
            }
        }
        for sender in senders { perSender[sender] = nil }
        items = kept
        return taken
    }
}
