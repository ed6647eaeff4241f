import Mouse3DCore
import Mouse3DLinux

/// The mouse3d receivers discovery has found, kept up to date from ``DiscoveryEvent``s: one entry
/// per service instance, with an address per interface and family it was resolved on. An instance
/// with no address left is forgotten, and at most ``maximumInstances`` are held (whoever is on the
/// network may announce as many as they like): past that, the one heard from longest ago goes.
public struct ReceiverDirectory: Sendable {
    /// Instances held at once.
    public static let maximumInstances = 256

    /// A receiver as currently known.
    public struct Receiver: Sendable, Equatable {
        /// Its DNS-SD instance name.
        public var instance: String
        /// What it announced.
        public var announcement: ReceiverAnnouncement
        /// The host it runs on.
        public var hostName: String
        /// Its addresses with the stream port, the preferred first (IPv4, then global IPv6, then
        /// link-local IPv6).
        public var addresses: [SocketAddress]
        /// The address to stream to.
        public var preferred: SocketAddress { addresses[0] }
    }

    /// What changed with one event.
    public enum Change: Sendable, Equatable {
        /// A receiver appeared, or its preferred address changed (it moved or restarted on another port).
        case reachable(Receiver)
        /// A receiver has no address left (it stopped or left the network).
        case gone(instance: String, fingerprint: String)
        /// A `_mouse3d._udp` service this version cannot use, and why.
        case unusable(instance: String, problem: String)
    }

    private struct Place: Hashable {
        var interface: Int32
        var ipv6: Bool
    }
    private struct Entry {
        var announcement: ReceiverAnnouncement
        var hostName: String
        var places: [Place: SocketAddress]
        /// When it was last found, in the order of events taken.
        var heard: UInt64 = 0
    }
    private var entries: [String: Entry] = [:]
    private var events: UInt64 = 0
    /// Instances forgotten to make room.
    public private(set) var evicted = 0

    /// How many instances are held (with an address or not yet).
    public var count: Int { entries.count }

    /// An empty directory.
    public init() {}

    /// Every receiver known, by instance name.
    public var receivers: [Receiver] {
        entries.keys.sorted().compactMap { receiver(instance: $0) }
    }

    /// The receiver announcing `fingerprint`, if known.
    public func receiver(fingerprint: String) -> Receiver? {
        receivers.first { $0.announcement.fingerprint == fingerprint }
    }

    /// The receiver whose announced or instance name is `name`, if known.
    public func receiver(named name: String) -> Receiver? {
        receivers.first { $0.announcement.name == name || $0.instance == name }
    }

    private func receiver(instance: String) -> Receiver? {
        guard let entry = entries[instance], !entry.places.isEmpty else { return nil }
        let addresses = entry.places.sorted { a, b in
            (Self.rank(a.value), a.key.interface) < (Self.rank(b.value), b.key.interface)
        }.map(\.value)
        return Receiver(
            instance: instance, announcement: entry.announcement, hostName: entry.hostName, addresses: addresses)
    }

    /// IPv4 first, then routable IPv6, then link-local IPv6.
    private static func rank(_ address: SocketAddress) -> Int {
        address.isIPv4 ? 0 : address.isIPv6LinkLocal ? 2 : 1
    }

    /// Takes in one event; returns what changed for users of the directory (nil: nothing).
    public mutating func apply(_ event: DiscoveryEvent) -> Change? {
        switch event {
        case .found(let service):
            let announcement: ReceiverAnnouncement
            switch ReceiverAnnouncement.parse(service.txt, instanceName: service.name) {
            case .success(let a): announcement = a
            case .failure(let problem): return .unusable(instance: service.name, problem: problem.description)
            }
            let before = receiver(instance: service.name)
            var entry =
                entries[service.name] ?? Entry(announcement: announcement, hostName: service.hostName, places: [:])
            if entry.announcement != announcement {
                // Restarted with another record (a new key, other outputs): the old places are stale.
                entry.places = [:]
            }
            entry.announcement = announcement
            entry.hostName = service.hostName
            entry.places[Place(interface: service.interface, ipv6: !service.address.isIPv4)] = service.address
            events += 1
            entry.heard = events
            if entries[service.name] == nil && entries.count >= Self.maximumInstances,
                let oldest = entries.min(by: { $0.value.heard < $1.value.heard })?.key
            {
                entries[oldest] = nil
                evicted += 1
            }
            entries[service.name] = entry
            let after = receiver(instance: service.name)!
            return before?.preferred == after.preferred && before?.announcement == after.announcement
                ? nil : .reachable(after)
        case .removed(let name, let interface, let ipv6):
            guard var entry = entries[name] else { return nil }
            let before = receiver(instance: name)
            entry.places[Place(interface: interface, ipv6: ipv6)] = nil
            entries[name] = entry.places.isEmpty ? nil : entry
            guard let after = receiver(instance: name) else {
                return before == nil ? nil : .gone(instance: name, fingerprint: entry.announcement.fingerprint)
            }
            return before?.preferred == after.preferred ? nil : .reachable(after)
        case .daemonRunning, .daemonUnavailable, .published, .publishFailed, .browseFailed:
            return nil
        }
    }
}
