import Mouse3DCore
import Mouse3DLinux

/// Counts per sender address (those that had a frame accepted) and the link quality of each;
/// what other sources cost is only in the totals, so a flood from many addresses takes no memory,
/// and past ``AttitudeReceiver/maximumCountedSources`` the addresses without a stream are summed
/// into one.
struct SenderTally {
    private(set) var counters: [SocketAddress: AttitudeReceiver.SenderCounters] = [:]
    private(set) var quality: [SocketAddress: LinkQualityWindow] = [:]
    /// Datagrams dropped from sources that never had a frame accepted.
    private var unattributedDrops: UInt64 = 0
    /// Counts of sources no longer counted one by one.
    private var retired = AttitudeReceiver.SenderCounters()

    /// Totals over every sender.
    var totals: AttitudeReceiver.SenderCounters {
        var start = retired
        start.dropped += unattributedDrops
        return counters.values.reduce(into: start) { t, c in t.add(c) }
    }

    /// A datagram from `source` refused.
    mutating func dropped(from source: SocketAddress) {
        if counters[source] != nil { counters[source]!.dropped += 1 } else { unattributedDrops += 1 }
    }

    /// A frame from `source` came after a newer one.
    mutating func reordered(from source: SocketAddress, now: UInt64) {
        counters[source, default: .init()].reordered += 1
        quality[source, default: LinkQualityWindow()].reordered(now: now)
    }

    /// A frame from `source` accepted, `skipped` sequence numbers after the stream's newest.
    mutating func accepted(from source: SocketAddress, skipped: UInt64, sent: UInt64?, now: UInt64) {
        counters[source, default: .init()].lost &+= skipped  // a sender may skip 2^64 - 2
        counters[source, default: .init()].frames &+= 1
        quality[source, default: LinkQualityWindow()].accepted(now: now, lostBefore: skipped, sent: sent)
    }

    /// Before `source` is counted: when the table is full, the sources not in `live` are summed.
    mutating func makeRoom(for source: SocketAddress, limit: Int, live: () -> Set<SocketAddress>) {
        guard counters[source] == nil && counters.count >= limit else { return }
        let keep = live()
        for (address, c) in counters where !keep.contains(address) {
            retired.add(c)
            counters[address] = nil
            quality[address] = nil
        }
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
