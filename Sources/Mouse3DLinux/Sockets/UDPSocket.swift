import CLinux
import Glibc
import SystemPackage

/// A UDP socket, non-blocking by default. Owned by one thread at a time; closed on deinit.
public final class UDPSocket {
    /// The descriptor, for the event loop.
    public let descriptor: FileDescriptor
    /// The address family, `AF_INET` or `AF_INET6`.
    public let family: Int32

    /// A new socket of `family`, non-blocking unless `blocking` (then ``receive(into:)`` waits).
    /// The corresponding C call is `socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)`.
    public init(family: Int32, blocking: Bool = false) throws(SystemCallError) {
        let type =
            Int32(SOCK_DGRAM.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue)) | Int32(SOCK_CLOEXEC.rawValue)
        descriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("socket", "UDP socket") { socket(family, type, 0) })
        self.family = family
    }

    deinit { try? descriptor.close() }

    /// Binds to `address`. An IPv6 wildcard also accepts IPv4 (dual stack). `bind(2)`.
    public func bind(to address: SocketAddress) throws(SystemCallError) {
        if family == AF_INET6 && address.isWildcard {
            try setOption(Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0, "IPV6_V6ONLY")
        }
        _ = try SystemCall.retrying("bind", "\(address)") {
            address.withSocketAddress {
                Glibc.bind(descriptor.rawValue, $0, $1)
            }
        }
    }

    /// The address the socket is bound to. `getsockname(2)`.
    public func localAddress() throws(SystemCallError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try SystemCall.retrying("getsockname", "UDP socket") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor.rawValue, $0, &length) }
            }
        }
        return SocketAddress(storage: storage, length: length)
    }

    /// Connects to `address`: the kernel then queues datagrams from that address only (for a socket
    /// that only sends, nothing another host sends to it piles up). `connect(2)`.
    public func connect(to address: SocketAddress) throws(SystemCallError) {
        _ = try SystemCall.retrying("connect", "\(address)") {
            address.withSocketAddress {
                Glibc.connect(descriptor.rawValue, $0, $1)
            }
        }
    }

    /// Bytes waiting to be read (`FIONREAD`), or nil if the kernel cannot say.
    public func pendingBytes() -> Int? {
        var n: Int32 = 0
        let done = try? SystemCall.retrying("ioctl", "FIONREAD") { ioctl(descriptor.rawValue, UInt(FIONREAD), &n) }
        return done == nil ? nil : Int(n)
    }

    /// Asks for a receive buffer of `bytes` (the kernel may cap it at `net.core.rmem_max`).
    public func setReceiveBufferSize(_ bytes: Int) throws(SystemCallError) {
        try setOption(SOL_SOCKET, SO_RCVBUF, Int32(clamping: bytes), "SO_RCVBUF")
    }

    /// Asks for a send buffer of `bytes`.
    public func setSendBufferSize(_ bytes: Int) throws(SystemCallError) {
        try setOption(SOL_SOCKET, SO_SNDBUF, Int32(clamping: bytes), "SO_SNDBUF")
    }

    /// On a blocking socket: ``receive(into:)`` returns nil after waiting `nanoseconds` for nothing.
    public func setReceiveTimeout(nanoseconds: UInt64) throws(SystemCallError) {
        var t = timeval(tv_sec: Int(nanoseconds / 1_000_000_000), tv_usec: Int(nanoseconds % 1_000_000_000 / 1000))
        _ = try SystemCall.retrying("setsockopt", "UDP socket option SO_RCVTIMEO") {
            setsockopt(descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    func setOption(_ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws(SystemCallError) {
        var v = value
        _ = try SystemCall.retrying("setsockopt", "UDP socket option \(label)") {
            setsockopt(descriptor.rawValue, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// The outcome of one send.
    public enum SendOutcome: Sendable, Equatable {
        /// Handed to the kernel.
        case sent
        /// Not sent, for a reason a streaming sender survives: the peer is not listening (an ICMP
        /// error came back), the network is unreachable or down, or the socket buffer is full.
        case notDelivered(Errno)
    }

    /// Sends one datagram to `address`. `sendto(2)`; errors a sender should ride out are returned as
    /// ``SendOutcome/notDelivered(_:)``, anything else is thrown.
    public func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) throws(SystemCallError) -> SendOutcome
    {
        let outcome = try SystemCall.attempt("sendto", "\(address)", tolerating: Self.survivable) {
            address.withSocketAddress {
                sendto(descriptor.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1)
            }
        }
        switch outcome {
        case .completed: return .sent
        case .tolerated(let errno): return .notDelivered(errno)
        }
    }

    /// Send errors a streaming sender rides out.
    static let survivable: [Int32] = [
        ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EAGAIN, ENOBUFS, EPERM, EADDRNOTAVAIL
    ]

    /// Receives one datagram into `buffer`: its length (possibly truncated to the buffer) and sender,
    /// or `nil` when none is waiting. `recvfrom(2)` with `MSG_TRUNC`, so the real length is reported.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> (
        length: Int, from: SocketAddress
    )? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // ECONNREFUSED can be queued on an unconnected socket by an ICMP error: not ours to stop for.
        while true {
            let outcome = try SystemCall.attempt(
                "recvfrom", "UDP socket", tolerating: [EAGAIN, EWOULDBLOCK, ECONNREFUSED]
            ) {
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), $0, &length)
                    }
                }
            }
            switch outcome {
            case .completed(let n): return (n, SocketAddress(storage: storage, length: length))
            case .tolerated(.connectionRefused): continue
            case .tolerated: return nil
            }
        }
    }
}
