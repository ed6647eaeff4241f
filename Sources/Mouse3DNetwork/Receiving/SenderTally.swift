import Mouse3DCore
import Mouse3DLinux

/// Counts per sender address (those that had a frame accepted) and the link quality of each;
/// what other sources cost is only in the totals, so a flood from many addresses takes no memory,
/// and past ``AttitudeReceiver/maximumCountedSources`` the addresses without a stream are summed
/// into one.
struct SenderTally {
    /// One source's counts and link quality, found with one hash of its address per frame.
    private struct Entry {
        var counters = AttitudeReceiver.SenderCounters()
        var quality = LinkQualityWindow()
    }

    private var entries: [SocketAddress: Entry] = [:]
    /// The entry updated last, and where: forgotten whenever an entry is added or removed, which
    /// moves them.
    private var last: (source: SocketAddress, index: Dictionary<SocketAddress, Entry>.Index)?
    /// Datagrams dropped from sources that never had a frame accepted.
    private var unattributedDrops: UInt64 = 0
    /// Counts of sources no longer counted one by one.
    private var retired = AttitudeReceiver.SenderCounters()

    var counters: [SocketAddress: AttitudeReceiver.SenderCounters] { entries.mapValues(\.counters) }
    var quality: [SocketAddress: LinkQualityWindow] { entries.mapValues(\.quality) }

    /// Totals over every sender.
    var totals: AttitudeReceiver.SenderCounters {
        var start = retired
        start.dropped += unattributedDrops
        return entries.values.reduce(into: start) { t, e in t.add(e.counters) }
    }

    /// A datagram from `source` refused.
    mutating func dropped(from source: SocketAddress) {
        if let i = entries.index(forKey: source) {
            entries.values[i].counters.dropped += 1
        } else {
            unattributedDrops += 1
        }
    }

    /// A frame from `source` came after a newer one.
    mutating func reordered(from source: SocketAddress, now: UInt64) {
        update(source) { e in
            e.counters.reordered += 1
            e.quality.reordered(now: now)
        }
    }

    /// A frame from `source` accepted, `skipped` sequence numbers after the stream's newest.
    mutating func accepted(from source: SocketAddress, skipped: UInt64, sent: UInt64?, now: UInt64) {
        update(source) { e in
            e.counters.lost &+= skipped  // a sender may skip 2^64 - 2
            e.counters.frames &+= 1
            e.quality.accepted(now: now, lostBefore: skipped, sent: sent)
        }
    }

    /// `body` on the entry of `source` (made if new), in place: no hash of the address when the
    /// last update was the same source's, one when not (two for a new source).
    private mutating func update(_ source: SocketAddress, _ body: (inout Entry) -> Void) {
        // A stream's datagrams come one after another from one source: its entry is found without
        // hashing the address again.
        if let last, last.source == source {
            body(&entries.values[last.index])
            return
        }
        if let index = entries.index(forKey: source) {
            body(&entries.values[index])
            last = (source, index)
            return
        }
        var entry = Entry()
        body(&entry)
        entries[source] = entry
        last = entries.index(forKey: source).map { (source, $0) }
    }

    /// Whether the table is full (`limit` sources) and `source` is not in it: ``retire(keeping:)``
    /// makes room before it is counted.
    func isFull(without source: SocketAddress, limit: Int) -> Bool {
        entries.count >= limit && entries[source] == nil
    }

    /// The sources not in `live` summed, to make room. (Asked for by the caller after
    /// ``isFull(without:limit:)`` rather than through a closure: a closure reading the caller's
    /// streams retained and released the caller for every frame.)
    mutating func retire(keeping live: Set<SocketAddress>) {
        for (address, e) in entries where !live.contains(address) {
            retired.add(e.counters)
            entries[address] = nil
        }
        last = nil
    }
}

extension AttitudeReceiver.SenderCounters {
    mutating func add(_ other: Self) {
        frames &+= other.frames
        dropped &+= other.dropped
        lost &+= other.lost
        reordered &+= other.reordered
    }
}
