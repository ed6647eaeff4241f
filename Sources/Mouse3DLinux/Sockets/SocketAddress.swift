import CLinux
import Glibc

/// An IPv4 or IPv6 socket address with its length, held in the 28 bytes of a `sockaddr_in6` (a
/// `sockaddr_in` is its first 16). Not a `sockaddr_storage` (128 bytes): a receiver copies the
/// address of every datagram into its stream's key, its counters and its events.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    @usableFromInline var raw: sockaddr_in6
    @usableFromInline var length: socklen_t

    /// Wraps `length` bytes of a socket address at `bytes` (an IPv4 or IPv6 one: past 28 bytes,
    /// nothing is kept).
    init(bytes: UnsafeRawPointer, length: socklen_t) {
        var raw = sockaddr_in6()
        let kept = min(Int(length), MemoryLayout<sockaddr_in6>.size)
        withUnsafeMutableBytes(of: &raw) { $0.baseAddress!.copyMemory(from: bytes, byteCount: kept) }
        self.raw = raw
        self.length = socklen_t(kept)
    }

    /// Wraps raw socket address bytes.
    init(storage: sockaddr_storage, length: socklen_t) {
        var storage = storage
        self.init(bytes: &storage, length: length)
    }

    /// Calls `body` with the address as a `sockaddr` and its length (for `bind`, `connect`, `sendto`).
    func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        var copy = raw
        return try withUnsafePointer(to: &copy) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }

    /// `AF_INET` or `AF_INET6`.
    public var family: Int32 { Int32(raw.sin6_family) }

    /// The port.
    public var port: UInt16 {
        withUnsafeBytes(of: raw) { raw in
            switch family {
            case AF_INET: UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
            case AF_INET6: UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
            default: 0
            }
        }
    }

    /// Whether this is a loopback address (127.0.0.0/8 or ::1, or ::ffff:127.x).
    public var isLoopback: Bool {
        withUnsafeBytes(of: raw) { raw in
            switch family {
            case AF_INET: return raw[4] == 127
            case AF_INET6:
                let a = Array(raw[8..<24])
                if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] == 1 { return true }
                return a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xff && a[11] == 0xff && a[12] == 127
            default: return false
            }
        }
    }

    /// The network the address is in, as a key: its /24 for IPv4 (an IPv4-mapped IPv6 address too),
    /// its /64 for IPv6 (what one host or one home network is usually given). Servers bound what
    /// one network may hold, since one host can take many addresses within it.
    public var network: String {
        withUnsafeBytes(of: raw) { raw in
            switch family {
            case AF_INET: return "\(raw[4]).\(raw[5]).\(raw[6]).0/24"
            case AF_INET6:
                let a = Array(raw[8..<24])
                if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xff && a[11] == 0xff {
                    return "\(a[12]).\(a[13]).\(a[14]).0/24"
                }
                return stride(from: 0, to: 8, by: 2).map { String(UInt16(a[$0]) << 8 | UInt16(a[$0 + 1]), radix: 16) }
                    .joined(separator: ":") + "::/64"
            default: return "?"
            }
        }
    }

    /// Whether this is the wildcard address (0.0.0.0 or ::).
    public var isWildcard: Bool {
        withUnsafeBytes(of: raw) { raw in
            switch family {
            case AF_INET: return raw[4..<8].allSatisfy { $0 == 0 }
            case AF_INET6: return raw[8..<24].allSatisfy { $0 == 0 }
            default: return false
            }
        }
    }

    /// The address as a browser writes it in a `Host` header: `description`, but an IPv4 address
    /// that arrived on a dual-stack socket (`[::ffff:10.9.0.2]:P`) as `10.9.0.2:P`.
    public var hostText: String {
        let text = description
        guard text.hasPrefix("[::ffff:"), let close = text.firstIndex(of: "]"), text[..<close].contains(".") else {
            return text
        }
        return String(text[text.index(text.startIndex, offsetBy: 8)..<close])
            + String(text[text.index(after: close)...])
    }

    /// `1.2.3.4:5` or `[::1]:5`.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: raw) { raw in
            let offset = family == AF_INET ? 4 : 8
            _ = inet_ntop(family, raw.baseAddress! + offset, &text, socklen_t(text.count))
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Equal when their first `length` bytes are. Every address is made by ``init(bytes:length:)``,
    /// which leaves the bytes past `length` zero, so all 28 are compared, as three words and a half
    /// (a `memcmp` call was about 70 instructions, twice a received frame: callgrind).
    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        guard a.length == b.length else { return false }
        return withUnsafeBytes(of: a.raw) { ra in
            withUnsafeBytes(of: b.raw) { rb in
                ra.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                    == rb.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                    && ra.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        == rb.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    && ra.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                        == rb.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                    && ra.loadUnaligned(fromByteOffset: 24, as: UInt32.self)
                        == rb.loadUnaligned(fromByteOffset: 24, as: UInt32.self)
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        // Family, port and address: the bytes that tell two peers apart (not the padding).
        withUnsafeBytes(of: raw) { raw in
            switch family {
            case AF_INET: hasher.combine(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            case AF_INET6:
                hasher.combine(raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            default: hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[0..<Int(length)]))
            }
        }
    }

    /// Why an address could not be understood.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// The text as given.
        public var text: String
        /// What is wrong with it.
        public var problem: String
        public var description: String { "'\(text)': \(problem)" }
    }

    /// The host and port of `HOST:PORT`, `[IPv6]:PORT`, `:PORT`, `PORT` or `HOST` (nil where not
    /// given), checked for form only: nothing is looked up. Command lines check their addresses with
    /// it while parsing, before anything starts.
    public static func split(_ text: String) throws(ParseError) -> (host: String?, port: UInt16?) {
        var host: String?
        var portText: String?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw ParseError(text: text, problem: "an IPv6 address in brackets needs its ']', as in [::1]:24930")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw ParseError(text: text, problem: "expected ':PORT' after ']'") }
                portText = String(rest.dropFirst())
            }
        } else if text.allSatisfy(\.isNumber) {
            portText = text
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        } else {
            host = text  // a name, an IPv4 address, or a bare IPv6 address
        }
        var port: UInt16?
        if let portText {
            guard let p = UInt16(portText) else {
                throw ParseError(text: text, problem: "'\(portText)' is not a port number (0-65535)")
            }
            port = p
        }
        if let h = host, h.isEmpty { host = nil }
        return (host, port)
    }

    /// Resolves `HOST:PORT`, `[IPv6]:PORT`, `:PORT` or `PORT` (wildcard host when `passive`, else
    /// loopback), or `HOST` alone with `defaultPort`. Names are looked up with `getaddrinfo`.
    public static func resolve(_ text: String, defaultPort: UInt16, passive: Bool) throws(ParseError) -> SocketAddress {
        let (host, given) = try split(text)
        let port = given ?? defaultPort

        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) | AI_ADDRCONFIG
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        var status = getaddrinfo(host, String(port), &hints, &list)
        if status != 0, host != nil {
            // AI_ADDRCONFIG hides ::1 on hosts without a global IPv6 address; ask again without it.
            hints.ai_flags &= ~AI_ADDRCONFIG
            status = getaddrinfo(host, String(port), &hints, &list)
        }
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw ParseError(text: text, problem: "cannot resolve host '\(host ?? "")': \(reason)")
        }
        defer { freeaddrinfo(list) }
        var storage = sockaddr_storage()
        let length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(length)))
        }
        return SocketAddress(storage: storage, length: length)
    }
}

extension SocketAddress {
    /// `HOST:PORT`, an IPv6 literal in brackets: the form ``resolve(_:defaultPort:passive:)`` reads.
    public static func text(host: String, port: UInt16) -> String {
        (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The host of `HOST[:PORT]` or `[IPv6][:PORT]` (an IPv6 literal without brackets is all host).
    public static func host(of text: String) -> String {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }
}

extension SocketAddress {
    /// An IPv4 address (4 bytes, network order) or an IPv6 address (16 bytes; `scopeID` is the
    /// interface of a link-local one) with a port; nil for any other length.
    public init?(addressBytes bytes: [UInt8], port: UInt16, scopeID: UInt32 = 0) {
        var storage = sockaddr_storage()
        let length: Int
        switch bytes.count {
        case 4:
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &a.sin_addr) { $0.copyBytes(from: bytes) }
            length = MemoryLayout<sockaddr_in>.size
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: a) { dst.copyMemory(from: $0) } }
        case 16:
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            a.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &a.sin6_addr) { $0.copyBytes(from: bytes) }
            length = MemoryLayout<sockaddr_in6>.size
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: a) { dst.copyMemory(from: $0) } }
        default:
            return nil
        }
        self.init(storage: storage, length: socklen_t(length))
    }

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { family == AF_INET }

    /// Whether this is a link-local IPv6 address (fe80::/10).
    public var isIPv6LinkLocal: Bool {
        family == AF_INET6 && withUnsafeBytes(of: raw) { $0[8] == 0xfe && $0[9] & 0xc0 == 0x80 }
    }

    /// The same address with another port.
    public func withPort(_ port: UInt16) -> SocketAddress {
        var copy = self
        withUnsafeMutableBytes(of: &copy.raw) {
            $0.storeBytes(of: port.bigEndian, toByteOffset: 2, as: UInt16.self)
        }
        return copy
    }
}
