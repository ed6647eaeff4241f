import CAvahi
import Glibc
import Mouse3DCore
import Synchronization
import SystemPackage

/// DNS-SD through the system's Avahi daemon (libavahi-client over D-Bus): announces one service and
/// browses one service type, resolving every instance found.
///
/// Avahi's client runs on its own thread (`AvahiThreadedPoll`); every call into the library happens
/// on that thread, inside its callbacks (or before it starts and after it stops). Callbacks turn
/// what they learn into ``DiscoveryEvent``s, queue them and make ``descriptor`` readable; the
/// owner's poll loop collects them with ``takeEvents()``. If the daemon is not running (or
/// restarts), the client waits for it and announces and browses again when it is back.
public final class ServiceDiscovery: @unchecked Sendable {
    /// Readable when events are waiting.
    public var descriptor: FileDescriptor { notifier.descriptor }

    private let notifier: EventNotifier
    private let events = Mutex<[DiscoveryEvent]>([])
    // Touched on Avahi's thread only (or while it is stopped).
    private let poll: OpaquePointer
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var browser: OpaquePointer?
    /// One resolver per instance, interface and family, kept while the instance is there: Avahi calls
    /// it again when the instance's records change (a receiver restarted on another port under the
    /// same name, which the browser need not report as gone and back). Avahi's thread only.
    private var resolvers: [String: OpaquePointer] = [:]
    private var announcement: ServiceAnnouncement?
    private var announcedName: String?
    private let browsedType: String?
    private var running = false

    /// Connects to the Avahi daemon over the system bus; announces `announcement` and browses for
    /// `browsedType` once it runs. Throws if there is no system bus to reach it on (or no memory);
    /// a daemon that is not running yet is reported as an event and awaited.
    public init(announcing announcement: ServiceAnnouncement?, browsing browsedType: String?) throws {
        guard m3d_avahi() != nil else {
            throw DiscoveryUnavailable(
                reason: "Avahi's client library could not be opened (\(String(cString: m3d_avahi_error())));"
                    + " install it: sudo apt install libavahi-client3")
        }
        notifier = try EventNotifier()
        guard let poll = avahi.avahi_threaded_poll_new() else { throw DiscoveryUnavailable(reason: "out of memory") }
        self.poll = poll
        self.announcement = announcement
        self.browsedType = browsedType
        if let announcement { announcedName = announcement.name }
        var error: Int32 = 0
        // The callback may run inside avahi_client_new, on this thread, before the poll thread starts.
        let created = avahi.avahi_client_new(
            avahi.avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, ServiceDiscovery.clientChanged,
            Unmanaged.passUnretained(self).toOpaque(), &error)
        // The callback keeps `client` current (it may already have replaced a failed one, freeing
        // `created`): only a client the callback never saw is taken from the return value.
        if client == nil { client = created }
        // (Fully initialized from here: a throw runs deinit, which frees what exists.)
        guard created != nil else {
            client = nil  // avahi_client_new freed what it made
            throw DiscoveryUnavailable(reason: ServiceDiscovery.text(of: error))
        }
        guard avahi.avahi_threaded_poll_start(poll) >= 0 else {
            throw DiscoveryUnavailable(reason: "cannot start Avahi's event thread")
        }
        running = true
    }

    deinit {
        if running { avahi.avahi_threaded_poll_stop(poll) }
        // Frees the entry group, browser and resolvers with it (withdrawing the announcement).
        if let client { avahi.avahi_client_free(client) }
        avahi.avahi_threaded_poll_free(poll)
    }

    /// The events since the last call, oldest first.
    public func takeEvents() -> [DiscoveryEvent] {
        notifier.reset()
        return events.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }

    private func post(_ event: DiscoveryEvent) {
        events.withLock { $0.append(event) }
        notifier.notify()
    }

    /// Avahi's text for `error`, starting lower case ("daemon not running"): it goes mid-sentence.
    private static func text(of error: Int32) -> String {
        let text = avahi.avahi_strerror(error).map { String(cString: $0) } ?? "error \(error)"
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase ?? true else {
            return text
        }
        return first.lowercased() + text.dropFirst()
    }

    /// Runs `body` with the instance behind a callback's userdata, without retaining it: were the
    /// callback to hold the last reference, deinit would run on Avahi's own thread and could not
    /// stop it. (deinit on the owner's thread waits for a running callback to finish.)
    private static func withInstance(_ userdata: UnsafeMutableRawPointer?, _ body: (ServiceDiscovery) -> Void) {
        Unmanaged<ServiceDiscovery>.fromOpaque(userdata!)._withUnsafeGuaranteedRef(body)
    }

    // MARK: Client state (Avahi's thread)

    private static let clientChanged: AvahiClientCallback = { client, state, userdata in
        withInstance(userdata) { me in
            me.client = client
            switch state {
            case AVAHI_CLIENT_S_RUNNING:
                me.post(.daemonRunning)
                me.announce()
                me.browse()
            case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
                // The host name changes: announce again once the daemon runs.
                if let group = me.group { avahi.avahi_entry_group_reset(group) }
            case AVAHI_CLIENT_CONNECTING:
                me.post(.daemonUnavailable("the Avahi daemon is not running"))
            case AVAHI_CLIENT_FAILURE:
                let error = avahi.avahi_client_errno(client)
                me.post(
                    .daemonUnavailable(error == AVAHI_ERR_DISCONNECTED ? "the Avahi daemon went away" : text(of: error))
                )
                // Start over and wait for the daemon to come back (freeing the client frees its objects).
                me.group = nil
                me.browser = nil
                me.resolvers.removeAll()
                avahi.avahi_client_free(client)
                var e: Int32 = 0
                me.client = avahi.avahi_client_new(
                    avahi.avahi_threaded_poll_get(me.poll), AVAHI_CLIENT_NO_FAIL, clientChanged, userdata, &e)
                if me.client == nil { me.post(.daemonUnavailable(text(of: e))) }
            default:
                break
            }
        }
    }

    // MARK: Announcing (Avahi's thread)

    private func announce() {
        guard let announcement, let client else { return }
        if group == nil {
            group = avahi.avahi_entry_group_new(
                client, ServiceDiscovery.groupChanged, Unmanaged.passUnretained(self).toOpaque())
            guard group != nil else { return post(.publishFailed(Self.text(of: avahi.avahi_client_errno(client)))) }
        }
        guard let group, avahi.avahi_entry_group_is_empty(group) != 0 else { return }
        var list: UnsafeMutablePointer<AvahiStringList>?
        for entry in announcement.txt { list = avahi.avahi_string_list_add(list, entry) }
        defer { avahi.avahi_string_list_free(list) }
        let interface: AvahiIfIndex =
            announcement.loopbackOnly ? AvahiIfIndex(if_nametoindex("lo")) : AvahiIfIndex(AVAHI_IF_UNSPEC)
        let name = announcedName ?? announcement.name
        var status = avahi.avahi_entry_group_add_service_strlst(
            group, interface, AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name, announcement.type, nil,
            nil,
            announcement.port, list)
        if status == AVAHI_ERR_COLLISION {
            renameAfterCollision()
            return announce()
        }
        if status >= 0 { status = avahi.avahi_entry_group_commit(group) }
        if status < 0 { post(.publishFailed(Self.text(of: status))) }
    }

    private func renameAfterCollision() {
        let current = announcedName ?? announcement?.name ?? "mouse3d"
        if let next = avahi.avahi_alternative_service_name(current) {
            announcedName = String(cString: next)
            avahi.avahi_free(next)
        }
        if let group { avahi.avahi_entry_group_reset(group) }
    }

    private static let groupChanged: AvahiEntryGroupCallback = { group, state, userdata in
        withInstance(userdata) { me in
            switch state {
            case AVAHI_ENTRY_GROUP_ESTABLISHED:
                me.post(.published(me.announcedName ?? ""))
            case AVAHI_ENTRY_GROUP_COLLISION:
                me.renameAfterCollision()
                me.announce()
            case AVAHI_ENTRY_GROUP_FAILURE:
                me.post(.publishFailed(text(of: avahi.avahi_client_errno(avahi.avahi_entry_group_get_client(group)))))
            default:
                break
            }
        }
    }

    // MARK: Browsing and resolving (Avahi's thread)

    private func browse() {
        guard let browsedType, let client, browser == nil else { return }
        browser = avahi.avahi_service_browser_new(
            client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), browsedType, nil,
            AvahiLookupFlags(0),
            ServiceDiscovery.browserChanged, Unmanaged.passUnretained(self).toOpaque())
        if browser == nil { post(.browseFailed(Self.text(of: avahi.avahi_client_errno(client)))) }
    }

    /// Browses again from scratch (from any thread): every instance present is reported and resolved
    /// anew, so a change Avahi did not report (or a stale cache) shows up.
    public func browseAgain() {
        guard running else { return }
        avahi.avahi_threaded_poll_lock(poll)
        for resolver in resolvers.values { avahi.avahi_service_resolver_free(resolver) }
        resolvers.removeAll()
        if let browser { avahi.avahi_service_browser_free(browser) }
        browser = nil
        browse()
        avahi.avahi_threaded_poll_unlock(poll)
    }

    private static func resolverKey(_ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ name: UnsafePointer<CChar>?)
        -> String
    {
        "\(interface)/\(proto)/" + (name.map { String(cString: $0) } ?? "")
    }

    private static let browserChanged: AvahiServiceBrowserCallback = {
        browser, interface, proto, event, name, type, domain, _, userdata in
        withInstance(userdata) { me in
            switch event {
            case AVAHI_BROWSER_NEW:
                guard let client = me.client else { return }
                let key = resolverKey(interface, proto, name)
                guard me.resolvers[key] == nil else { return }
                // Kept until the instance goes (or resolving fails): it answers again on every change.
                if let resolver = avahi.avahi_service_resolver_new(
                    client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC),
                    AvahiLookupFlags(0),
                    resolved, userdata)
                {
                    me.resolvers[key] = resolver
                } else {
                    me.post(.browseFailed(text(of: avahi.avahi_client_errno(client))))
                }
            case AVAHI_BROWSER_REMOVE:
                if let resolver = me.resolvers.removeValue(forKey: resolverKey(interface, proto, name)) {
                    avahi.avahi_service_resolver_free(resolver)
                }
                me.post(
                    .removed(
                        name: name.map { TerminalText.escaped(String(cString: $0)) } ?? "", interface: interface,
                        ipv6: proto == AVAHI_PROTO_INET6))
            case AVAHI_BROWSER_FAILURE:
                me.post(
                    .browseFailed(text(of: avahi.avahi_client_errno(avahi.avahi_service_browser_get_client(browser)))))
            default:
                break
            }
        }
    }

    private static let resolved: AvahiServiceResolverCallback = {
        resolver, interface, proto, event, name, _, _, hostName, address, port, txt, _, userdata in
        withInstance(userdata) { me in
            guard event == AVAHI_RESOLVER_FOUND else {
                // Failed (timed out, gone): dropped; the browser's next NEW starts another.
                let key = resolverKey(interface, proto, name)
                if me.resolvers[key] == resolver { me.resolvers.removeValue(forKey: key) }
                avahi.avahi_service_resolver_free(resolver)
                return
            }
            guard let address, let found = socketAddress(address.pointee, port: port, interface: interface) else {
                return
            }
            me.post(
                .found(
                    DiscoveredService(
                        name: name.map { TerminalText.escaped(String(cString: $0)) } ?? "", interface: interface,
                        hostName: hostName.map { TerminalText.escaped(String(cString: $0)) } ?? "", address: found,
                        txt: entries(of: txt))))
        }
    }

    private static func socketAddress(_ a: AvahiAddress, port: UInt16, interface: Int32) -> SocketAddress? {
        let all = withUnsafeBytes(of: a.data) { Array($0) }
        switch a.proto {
        case AvahiProtocol(AVAHI_PROTO_INET): return SocketAddress(addressBytes: Array(all.prefix(4)), port: port)
        case AvahiProtocol(AVAHI_PROTO_INET6):
            let linkLocal = all[0] == 0xfe && all[1] & 0xc0 == 0x80
            return SocketAddress(
                addressBytes: Array(all.prefix(16)), port: port, scopeID: linkLocal ? UInt32(max(interface, 0)) : 0)
        default: return nil
        }
    }

    private static func entries(of list: UnsafeMutablePointer<AvahiStringList>?) -> [String: String] {
        var result: [String: String] = [:]
        var item = list
        while let current = item {
            let size = Int(avahi.avahi_string_list_get_size(current))
            if let text = avahi.avahi_string_list_get_text(current) {
                let entry = String(decoding: UnsafeBufferPointer(start: text, count: size), as: UTF8.self)
                if let equals = entry.firstIndex(of: "=") {
                    result[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
                } else {
                    result[entry] = ""
                }
            }
            item = avahi.avahi_string_list_get_next(current)
        }
        return result
    }
}

/// Avahi's functions. Every use follows ``ServiceDiscovery``'s init, which refuses to go on when the
/// library could not be opened, so the table is there (CAvahi's shim.h says why it is not linked).
private var avahi: m3d_avahi { m3d_avahi()!.pointee }
