import CLinux
import Glibc

/// This machine's addresses on its networks, for URLs a phone on the same network can open: the
/// IPv4 and global IPv6 addresses of the interfaces that are up and not loopback
/// (`getifaddrs(3)`), those of the interface with the default route first (`/proc/net/route`), then
/// by interface name. Link-local addresses are left out (a browser cannot use them in a URL).
public enum LocalAddresses {
    /// One address and its interface.
    public struct Address: Sendable, Equatable {
        public let interface: String
        /// Numeric, as `inet_ntop` writes it.
        public let address: String
        public let isIPv6: Bool
        /// Whether its interface has the default route.
        public let onDefaultRoute: Bool

        /// How a URL writes it (IPv6 in brackets).
        public var urlHost: String { isIPv6 ? "[\(address)]" : address }
    }

    /// The addresses now, IPv4 before IPv6, the default route's interface first.
    public static func current() -> [Address] {
        let defaultInterfaces = defaultRouteInterfaces()
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [Address] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let e = entry {
            defer { entry = e.pointee.ifa_next }
            let flags = e.pointee.ifa_flags
            guard let sa = e.pointee.ifa_addr, flags & UInt32(IFF_UP) != 0, flags & UInt32(IFF_LOOPBACK) == 0 else {
                continue
            }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if family == AF_INET {
                sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var a = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                }
            } else {
                let linkLocal = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p -> Bool in
                    var a = p.pointee.sin6_addr
                    let first = withUnsafeBytes(of: &a) { ($0[0], $0[1]) }
                    _ = inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                    // fe80::/10 link-local, fc00::/7 is kept (a home router's ULA is reachable).
                    return first.0 == 0xfe && first.1 & 0xc0 == 0x80
                }
                if linkLocal { continue }
            }
            let name = String(cString: e.pointee.ifa_name)
            // Containers' and virtual machines' bridges and their veths: no phone is on those.
            if ["docker", "br-", "veth", "virbr", "lxcbr", "lxdbr", "cni", "podman", "flannel"].contains(where: {
                name.hasPrefix($0)
            }) {
                continue
            }
            found.append(
                Address(
                    interface: name,
                    address: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                    isIPv6: family == AF_INET6,
                    onDefaultRoute: defaultInterfaces.contains(name)))
        }
        return found.enumerated().sorted { a, b in
            let ka = (a.element.isIPv6 ? 1 : 0, a.element.onDefaultRoute ? 0 : 1, a.element.interface, a.offset)
            let kb = (b.element.isIPv6 ? 1 : 0, b.element.onDefaultRoute ? 0 : 1, b.element.interface, b.offset)
            return ka < kb
        }.map(\.element)
    }

    /// The interfaces with an IPv4 default route (destination 0 in `/proc/net/route`).
    static func defaultRouteInterfaces() -> Set<String> {
        guard let text = try? FileContents.read(path: "/proc/net/route") else { return [] }
        var names: Set<String> = []
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count > 2, fields[1] == "00000000" { names.insert(String(fields[0])) }
        }
        return names
    }
}
