import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// DNS-SD through the system's Avahi daemon, spoken to over D-Bus (Avahi's published D-Bus API,
/// `org.freedesktop.Avahi.*`): announces one service and browses one service type, resolving every
/// instance found.
///
/// Everything happens on the owner's event loop: ``descriptor`` (an epoll descriptor over the bus
/// socket and a retry timer) is readable when there is something to do, and ``takeEvents()`` does
/// it and returns what was learnt. If the daemon is not running (or restarts) it is awaited through
/// the bus's `NameOwnerChanged`, and announcing and browsing start again when it is back; if the bus
/// itself goes away it is tried again every second.
///
/// Only the daemon is believed: a signal counts only when the bus says it comes from the name's
/// current owner, and a reply only from whoever was asked (any program on the system bus can send
/// us a signal).
public final class ServiceDiscovery {
    /// Readable when ``takeEvents()`` has something to do.
    public var descriptor: FileDescriptor { poller }

    private let poller: FileDescriptor
    private let retryTimer: FileDescriptor
    private let address: DBusAddress
    private var bus: DBusConnection?
    private var events: [DiscoveryEvent] = []

    /// What a reply answers; replies are believed only from `from` and only in the generation of
    /// the daemon (and of browsing) they were asked in.
    private enum Request {
        case ignored
        case nameOwner
        case serverState
        case entryGroupNew
        case addService
        case commit
        case browserNew(Int)
        case resolverNew(String, Int)

        /// Whether the reply names a new browser or resolver.
        var makesObject: Bool {
            switch self {
            case .browserNew, .resolverNew: true
            default: false
            }
        }
    }
    private var pending: [UInt32: (request: Request, from: String, daemon: Int)] = [:]
    /// Counts the daemon's comings and goings: what was asked of an earlier one is not answered.
    private var daemonGeneration = 0
    /// The unique bus name of `org.freedesktop.Avahi`'s owner while there is one.
    private var avahiOwner: String?
    private var serverRunning = false

    private let announcement: ServiceAnnouncement?
    private var announcedName: String?
    private var group: String?
    private var groupRequested = false

    private let browsedType: String?
    private var browser: String?
    private var browserRequested = false
    /// Counts ``browseAgain()``s: a browser or resolver made for an earlier browse is freed.
    private var browseGeneration = 0
    /// One resolver per instance, interface and family (key), kept while the instance is there:
    /// Avahi answers again when the instance's records change (a receiver restarted on another
    /// port under the same name, which the browser need not report as gone and back).
    private var resolvers: [String: String] = [:]
    private var resolverKeys: [String: String] = [:]
    private var resolving: Set<String> = []
    /// Signals of browsers and resolvers whose path is not known yet: Avahi (0.8) starts one as it
    /// makes it, so its first signals can come before the reply that names it. Kept until that reply
    /// (at most ``maximumUnclaimed``; none while nothing is being made).
    private var unclaimed: [DBusMessage] = []
    static let maximumUnclaimed = 256
    /// Instances resolved at once at most (a network announcing thousands is not followed further).
    static let maximumResolvers = 256

    static let avahi = "org.freedesktop.Avahi"
    static let busName = "org.freedesktop.DBus"

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the usual socket); announces
    /// `announcement` and browses for `browsedType` once the Avahi daemon runs. Throws if there is no
    /// system bus to reach; a daemon that is not running yet is reported as an event and awaited.
    public init(announcing announcement: ServiceAnnouncement?, browsing browsedType: String?) throws {
        address = try Self.systemBus()
        self.announcement = announcement
        announcedName = announcement?.name
        self.browsedType = browsedType
        poller = FileDescriptor(
            rawValue: try SystemCall.retrying("epoll_create1", "discovery") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        do {
            retryTimer = FileDescriptor(
                rawValue: try SystemCall.retrying("timerfd_create", "discovery") {
                    timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
                })
        } catch {
            try? poller.close()
            throw error
        }
        try watch(retryTimer)
        try connect()
    }

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS`, or the usual socket.
    private static func systemBus() throws(DiscoveryUnavailable) -> DBusAddress {
        guard let text = getenv("DBUS_SYSTEM_BUS_ADDRESS").map({ String(cString: $0) }) else { return .systemDefault }
        guard let parsed = DBusAddress.parse(text) else {
            throw DiscoveryUnavailable(
                reason: "DBUS_SYSTEM_BUS_ADDRESS ('\(TerminalText.escaped(text))') names no Unix socket")
        }
        return parsed
    }

    /// Whether the Avahi daemon is on the system bus now (asked once, waiting up to 2 s for the
    /// answer); throws when there is no bus to ask.
    public static func daemonIsRunning() throws -> Bool {
        let bus = try DBusConnection(address: systemBus(), blocking: true)
        try bus.send(.call("Hello", on: "/org/freedesktop/DBus", interface: busName, destination: busName))
        var name = DBusWriter()
        name.string(avahi)
        let asked = try bus.send(
            .call(
                "GetNameOwner", on: "/org/freedesktop/DBus", interface: busName, destination: busName, signature: "s",
                body: name.bytes))
        while true {
            let messages = try bus.receive()
            guard !messages.isEmpty else { throw DiscoveryUnavailable(reason: "the system bus did not answer") }
            if let reply = messages.first(where: { $0.replySerial == asked && $0.sender == busName }) {
                return reply.kind == .methodReturn
            }
        }
    }

    deinit {
        try? retryTimer.close()
        try? poller.close()
        // Closing the connection withdraws the announcement and frees the browser and resolvers.
    }

    private func watch(_ descriptor: FileDescriptor) throws(SystemCallError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = descriptor.rawValue
        _ = try SystemCall.retrying("epoll_ctl", "discovery") {
            epoll_ctl(poller.rawValue, EPOLL_CTL_ADD, descriptor.rawValue, &event)
        }
    }

    /// Connects, says hello and asks to hear of Avahi: whether it runs, its signals.
    private func connect(timeoutMilliseconds: Int32 = 2000) throws {
        let connection = try DBusConnection(address: address, timeoutMilliseconds: timeoutMilliseconds)
        try watch(connection.descriptor)
        bus = connection
        try call(.ignored, "Hello", on: "/org/freedesktop/DBus", interface: Self.busName, at: Self.busName)
        for rule in [
            "type='signal',sender='\(Self.busName)',path='/org/freedesktop/DBus',interface='\(Self.busName)',"
                + "member='NameOwnerChanged',arg0='\(Self.avahi)'",
            "type='signal',sender='\(Self.avahi)'"
        ] {
            try call(
                .ignored, "AddMatch", on: "/org/freedesktop/DBus", interface: Self.busName, at: Self.busName,
                signature: "s"
            ) {
                $0.string(rule)
            }
        }
        try call(
            .nameOwner, "GetNameOwner", on: "/org/freedesktop/DBus", interface: Self.busName, at: Self.busName,
            signature: "s"
        ) {
            $0.string(Self.avahi)
        }
    }

    /// Sends a method call whose reply is handled as `request`; `signature` names the arguments
    /// `arguments` writes.
    private func call(
        _ request: Request, _ member: String, on path: String, interface: String, at destination: String,
        signature: String = "", _ arguments: (inout DBusWriter) -> Void = { _ in }
    ) throws(DiscoveryUnavailable) {
        guard let bus else { return }
        var body = DBusWriter()
        arguments(&body)
        let serial = try bus.send(
            .call(
                member, on: path, interface: interface, destination: destination, signature: signature, body: body.bytes
            ))
        pending[serial] = (
            request, destination == Self.avahi ? (avahiOwner ?? Self.avahi) : destination, daemonGeneration
        )
    }

    /// A call to the Avahi daemon (ignoring a lost connection: the next ``takeEvents()`` sees it).
    private func callAvahi(
        _ request: Request, _ member: String, on path: String = "/", interface: String,
        signature: String = "", _ arguments: (inout DBusWriter) -> Void = { _ in }
    ) {
        do {
            try call(request, member, on: path, interface: interface, at: Self.avahi, signature: signature, arguments)
        } catch {
            disconnect()
        }
    }

    /// The events since the last call, oldest first, after reading what the bus sent (and trying
    /// the bus again if it is due).
    public func takeEvents() -> [DiscoveryEvent] {
        var expirations: UInt64 = 0
        let fired =
            (try? SystemCall.retrying("read", "discovery timer", tolerating: [EAGAIN]) {
                read(retryTimer.rawValue, &expirations, 8)
            }) ?? nil
        if fired != nil, bus == nil {
            // A short wait: this runs on the loop, and a bus that is back answers at once.
            if (try? connect(timeoutMilliseconds: 250)) != nil {
                arm(retry: false)
            } else {
                bus = nil
            }
        }
        if let bus {
            do {
                try bus.flush()
                for message in try bus.receive() { handle(message) }
            } catch {
                disconnect()
            }
        }
        defer { events.removeAll() }
        return events
    }

    private func post(_ event: DiscoveryEvent) { events.append(event) }

    /// The bus is gone: everything Avahi held for us went with it; tried again every second.
    private func disconnect() {
        guard bus != nil else { return }
        bus = nil
        daemonLost()
        pending.removeAll()  // the bus's own answers went with the connection
        post(.daemonUnavailable("the Avahi daemon went away"))
        arm(retry: true)
    }

    private func arm(retry: Bool) {
        var spec = itimerspec()
        if retry {
            spec.it_value.tv_sec = 1
            spec.it_interval.tv_sec = 1
        }
        _ = try? SystemCall.retrying("timerfd_settime", "discovery timer") {
            timerfd_settime(retryTimer.rawValue, 0, &spec, nil)
        }
    }

    /// Forgets what the daemon held (its objects are gone) and what was asked of it.
    private func daemonLost() {
        daemonGeneration += 1
        avahiOwner = nil
        serverRunning = false
        group = nil
        groupRequested = false
        browser = nil
        browserRequested = false
        resolvers.removeAll()
        resolverKeys.removeAll()
        resolving.removeAll()
        unclaimed.removeAll()
        pending = pending.filter { $0.value.from == Self.busName }
    }

    // MARK: Messages

    private func handle(_ message: DBusMessage) {
        switch message.kind {
        case .methodReturn, .error:
            guard let serial = message.replySerial, let asked = pending[serial], message.sender == asked.from else {
                return
            }
            pending[serial] = nil
            guard asked.daemon == daemonGeneration || asked.from == Self.busName else { return }
            if message.kind == .error {
                failed(asked.request, message)
            } else {
                answered(asked.request, message)
            }
        case .signal:
            if message.sender == Self.busName {
                if message.member == "NameOwnerChanged", message.interface == Self.busName { ownerChanged(message) }
            } else if let owner = avahiOwner, message.sender == owner {
                avahiSignal(message)
            }
        case .methodCall:
            break  // nobody calls us
        }
    }

    private func answered(_ request: Request, _ reply: DBusMessage) {
        var r = reply.bodyReader
        switch request {
        case .ignored, .commit:
            break
        case .nameOwner:
            guard reply.signature == "s", let owner = try? r.string() else { return }
            avahiAppeared(owner)
        case .serverState:
            guard reply.signature == "i", let state = try? r.int32() else { return }
            serverState(state, error: "")
        case .entryGroupNew:
            guard reply.signature == "o", let path = try? r.objectPath() else { return }
            group = path
            addService()
        case .addService:
            callAvahi(.commit, "Commit", on: group ?? "/", interface: "\(Self.avahi).EntryGroup")
        case .browserNew(let generation):
            guard reply.signature == "o", let path = try? r.objectPath() else { return }
            guard generation == browseGeneration else {
                return callAvahi(.ignored, "Free", on: path, interface: "\(Self.avahi).ServiceBrowser")
            }
            browser = path
            claim(path)
        case .resolverNew(let key, let generation):
            guard reply.signature == "o", let path = try? r.objectPath() else { return }
            guard generation == browseGeneration, resolving.remove(key) != nil else {
                return callAvahi(.ignored, "Free", on: path, interface: "\(Self.avahi).ServiceResolver")
            }
            resolvers[key] = path
            resolverKeys[path] = key
            claim(path)
        }
        if !pending.values.contains(where: { $0.request.makesObject }) { unclaimed.removeAll() }
    }

    /// Handles the signals that came for `path` before its name did, in order.
    private func claim(_ path: String) {
        let early = unclaimed.filter { $0.path == path }
        unclaimed.removeAll { $0.path == path }
        for signal in early { avahiSignal(signal) }
    }

    private func failed(_ request: Request, _ error: DBusMessage) {
        let text = Self.text(error)
        switch request {
        case .ignored, .serverState:
            break
        case .nameOwner:
            post(.daemonUnavailable("the Avahi daemon is not running"))
        case .entryGroupNew, .commit:
            post(.publishFailed(text))
        case .addService:
            // Taken on the network, or by another program on this host (LocalCollisionError): a
            // failed AddService may leave some of its records in the group, so it starts empty.
            if error.errorName == "\(Self.avahi).CollisionError"
                || error.errorName == "\(Self.avahi).LocalCollisionError"
            {
                renameAndAnnounce(text)
            } else {
                post(.publishFailed(text))
            }
        case .browserNew:
            browserRequested = false
            browser = nil
            post(.browseFailed(text))
        case .resolverNew(let key, let generation):
            guard generation == browseGeneration else { return }  // an earlier browse's: nothing of now
            resolving.remove(key)
            post(.browseFailed(text))
        }
    }

    /// An error's words, starting lower case ("daemon not running"): they go mid-sentence.
    private static func text(_ error: DBusMessage) -> String {
        var text = TerminalText.escaped(error.errorText)
        if text.isEmpty { text = TerminalText.escaped(error.errorName ?? "error") }
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase ?? true else {
            return text
        }
        return first.lowercased() + text.dropFirst()
    }

    private func ownerChanged(_ signal: DBusMessage) {
        guard signal.signature == "sss" else { return }
        var r = signal.bodyReader
        guard let name = try? r.string(), name == Self.avahi, (try? r.string()) != nil, let owner = try? r.string()
        else { return }
        if avahiOwner != nil {
            daemonLost()
            post(.daemonUnavailable("the Avahi daemon is not running"))
        }
        if !owner.isEmpty { avahiAppeared(owner) }
    }

    private func avahiAppeared(_ owner: String) {
        avahiOwner = owner
        callAvahi(.serverState, "GetState", interface: "\(Self.avahi).Server")
    }

    /// The daemon's state (`AvahiServerState`): 2 is running; 1 (registering) and 3 (collision) mean
    /// its host name is changing, and services are announced again once it runs.
    private func serverState(_ state: Int32, error: String) {
        switch state {
        case 2:
            guard !serverRunning else { return }
            serverRunning = true
            post(.daemonRunning)
            announce()
            browse()
        case 1, 3:
            serverRunning = false
            if let group { callAvahi(.ignored, "Reset", on: group, interface: "\(Self.avahi).EntryGroup") }
        case 4:
            serverRunning = false
            post(.daemonUnavailable(error.isEmpty ? "the Avahi daemon failed" : TerminalText.escaped(error)))
        default:
            break
        }
    }

    private func avahiSignal(_ signal: DBusMessage) {
        guard let path = signal.path, let interface = signal.interface, let member = signal.member else { return }
        var r = signal.bodyReader
        switch (interface, member) {
        case ("\(Self.avahi).Server", "StateChanged") where path == "/" && signal.signature == "is":
            guard let state = try? r.int32(), let error = try? r.string() else { return }
            serverState(state, error: error)
        case ("\(Self.avahi).EntryGroup", "StateChanged") where path == group && signal.signature == "is":
            guard let state = try? r.int32(), let error = try? r.string() else { return }
            groupState(state, error: error)
        case ("\(Self.avahi).ServiceBrowser", _) where path == browser:
            browserSignal(member, signal)
        case ("\(Self.avahi).ServiceResolver", _) where resolverKeys[path] != nil:
            resolverSignal(member, signal, key: resolverKeys[path]!, path: path)
        case ("\(Self.avahi).ServiceBrowser", _), ("\(Self.avahi).ServiceResolver", _):
            if unclaimed.count < Self.maximumUnclaimed, pending.values.contains(where: { $0.request.makesObject }) {
                unclaimed.append(signal)
            }
        default:
            break
        }
    }

    // MARK: Announcing

    private func announce() {
        guard announcement != nil, serverRunning else { return }
        if group != nil {
            addService()
        } else if !groupRequested {
            groupRequested = true
            callAvahi(.entryGroupNew, "EntryGroupNew", interface: "\(Self.avahi).Server")
        }
    }

    private func addService() {
        guard let announcement, let group else { return }
        let interface = announcement.loopbackOnly ? Int32(if_nametoindex("lo")) : -1
        let name = announcedName ?? announcement.name
        callAvahi(.addService, "AddService", on: group, interface: "\(Self.avahi).EntryGroup", signature: "iiussssqaay")
        {
            $0.int32(interface)
            $0.int32(-1)  // either family
            $0.uint32(0)
            $0.string(name)
            $0.string(announcement.type)
            $0.string("")  // the default domain
            $0.string("")  // this host
            $0.uint16(announcement.port)
            $0.array(elementAlignment: 4) { w in
                for entry in announcement.txt { w.byteArray(Array(entry.utf8)) }
            }
        }
    }

    /// Names tried after collisions since the last announcement that held: past
    /// ``maximumCollisions`` announcing stops (someone is taking every name tried).
    private var collisions = 0
    static let maximumCollisions = 50

    /// The next name after a collision, in an emptied group.
    private func renameAndAnnounce(_ why: String) {
        collisions += 1
        guard collisions <= Self.maximumCollisions else {
            return post(.publishFailed("\(why), and so were the \(Self.maximumCollisions) names tried after it"))
        }
        announcedName = ServiceInstanceName.alternative(to: announcedName ?? announcement?.name ?? "mouse3d")
        if let group { callAvahi(.ignored, "Reset", on: group, interface: "\(Self.avahi).EntryGroup") }
        addService()
    }

    /// The entry group's state: 2 established, 3 collision (renamed and announced again), 4 failure.
    private func groupState(_ state: Int32, error: String) {
        switch state {
        case 2:
            collisions = 0
            post(.published(announcedName ?? ""))
        case 3:
            renameAndAnnounce("the name is taken")
        case 4:
            post(.publishFailed(error.isEmpty ? "the Avahi daemon could not announce it" : TerminalText.escaped(error)))
        default:
            break
        }
    }

    // MARK: Browsing and resolving

    private func browse() {
        guard let browsedType, serverRunning, browser == nil, !browserRequested else { return }
        browserRequested = true
        callAvahi(
            .browserNew(browseGeneration), "ServiceBrowserNew", interface: "\(Self.avahi).Server",
            signature: "iissu"
        ) {
            $0.int32(-1)
            $0.int32(-1)
            $0.string(browsedType)
            $0.string("")
            $0.uint32(0)
        }
    }

    /// Browses again from scratch: every instance present is reported and resolved anew, so a
    /// change Avahi did not report (or a stale cache) shows up.
    public func browseAgain() {
        browseGeneration += 1
        for path in resolvers.values {
            callAvahi(.ignored, "Free", on: path, interface: "\(Self.avahi).ServiceResolver")
        }
        resolvers.removeAll()
        resolverKeys.removeAll()
        resolving.removeAll()
        if let browser { callAvahi(.ignored, "Free", on: browser, interface: "\(Self.avahi).ServiceBrowser") }
        browser = nil
        browserRequested = false
        browse()
    }

    private func browserSignal(_ member: String, _ signal: DBusMessage) {
        var r = signal.bodyReader
        switch member {
        case "ItemNew", "ItemRemove":
            guard signal.signature == "iisssu", let interface = try? r.int32(), let proto = try? r.int32(),
                let name = try? r.string(), let type = try? r.string(), let domain = try? r.string()
            else { return }
            let key = "\(interface)/\(proto)/\(name)"
            if member == "ItemRemove" {
                resolving.remove(key)
                if let path = resolvers.removeValue(forKey: key) {
                    resolverKeys[path] = nil
                    callAvahi(.ignored, "Free", on: path, interface: "\(Self.avahi).ServiceResolver")
                }
                return post(.removed(name: TerminalText.escaped(name), interface: interface, ipv6: proto == 1))
            }
            guard resolvers[key] == nil, !resolving.contains(key),
                resolvers.count + resolving.count < Self.maximumResolvers
            else { return }
            resolving.insert(key)
            callAvahi(
                .resolverNew(key, browseGeneration), "ServiceResolverNew", interface: "\(Self.avahi).Server",
                signature: "iisssiu"
            ) {
                $0.int32(interface)
                $0.int32(proto)
                $0.string(name)
                $0.string(type)
                $0.string(domain)
                $0.int32(-1)  // an address of either family
                $0.uint32(0)
            }
        case "Failure":
            guard signal.signature == "s", let error = try? r.string() else { return }
            post(.browseFailed(TerminalText.escaped(error)))
        default:
            break  // AllForNow, CacheExhausted
        }
    }

    private func resolverSignal(_ member: String, _ signal: DBusMessage, key: String, path: String) {
        switch member {
        case "Found":
            guard signal.signature == "iissssisqaayu", let found = Self.service(signal) else { return }
            post(.found(found))
        case "Failure":
            // Timed out or gone: dropped. Avahi reports the instance again only on a new browse
            // (a sender browses again when a paired receiver stops answering its probes).
            resolvers[key] = nil
            resolverKeys[path] = nil
            callAvahi(.ignored, "Free", on: path, interface: "\(Self.avahi).ServiceResolver")
        default:
            break
        }
    }

    /// A resolver's `Found`: interface, protocol, name, type, domain, host, address family, address
    /// (text), port, TXT, flags.
    private static func service(_ signal: DBusMessage) -> DiscoveredService? {
        var r = signal.bodyReader
        guard let interface = try? r.int32(), (try? r.int32()) != nil, let name = try? r.string(),
            (try? r.string()) != nil, (try? r.string()) != nil, let host = try? r.string(),
            let family = try? r.int32(), let text = try? r.string(), let port = try? r.uint16(),
            let txt = try? r.byteArrays(),
            let address = socketAddress(text, family: family, port: port, interface: interface)
        else { return nil }
        var entries: [String: String] = [:]
        for item in txt {
            let entry = String(decoding: item, as: UTF8.self)
            if let equals = entry.firstIndex(of: "=") {
                entries[TerminalText.escaped(String(entry[..<equals]))] = TerminalText.escaped(
                    String(entry[entry.index(after: equals)...]))
            } else {
                entries[TerminalText.escaped(entry)] = ""
            }
        }
        return DiscoveredService(
            name: TerminalText.escaped(name), interface: interface, hostName: TerminalText.escaped(host),
            address: address, txt: entries)
    }

    /// Avahi's address text (family 0 IPv4, 1 IPv6) as a socket address; a link-local IPv6 one gets
    /// the interface as its scope.
    private static func socketAddress(_ text: String, family: Int32, port: UInt16, interface: Int32) -> SocketAddress? {
        switch family {
        case 0:
            var a = in_addr()
            guard inet_pton(AF_INET, text, &a) == 1 else { return nil }
            return SocketAddress(addressBytes: withUnsafeBytes(of: a) { Array($0) }, port: port)
        case 1:
            var a = in6_addr()
            guard inet_pton(AF_INET6, text, &a) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: a) { Array($0) }
            let linkLocal = bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80
            return SocketAddress(addressBytes: bytes, port: port, scopeID: linkLocal ? UInt32(max(interface, 0)) : 0)
        default:
            return nil
        }
    }
}
