import CLinux
import Glibc
import SystemPackage

/// A listening TCP socket, non-blocking: ``accept()`` hands out connections until none wait.
/// Owned by the event loop's thread; closed on deinit.
public final class TCPListener {
    /// The descriptor, for the event loop.
    public let descriptor: FileDescriptor
    /// The address it listens on (with the port the kernel chose for port 0).
    public private(set) var localAddress: SocketAddress

    /// Hands out only connections whose client has sent something (or that waited `seconds`):
    /// `TCP_DEFER_ACCEPT` (tcp(7)). A browser sends its request or ClientHello at once; a bare
    /// connect, which costs a flooder nothing, then never takes a place in the server's table.
    public func deferAccept(seconds: Int32) throws(SystemCallError) {
        var value = seconds
        _ = try SystemCall.retrying("setsockopt", "TCP_DEFER_ACCEPT") {
            setsockopt(
                descriptor.rawValue, Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Listens on `address` with a backlog of `backlog`. `socket(2)`, `SO_REUSEADDR`, `bind(2)`, `listen(2)`.
    public init(listeningOn address: SocketAddress, backlog: Int32 = 64) throws(SystemCallError) {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        descriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("socket", "TCP socket") { socket(address.family, type, 0) })
        localAddress = address
        do {
            var one: Int32 = 1
            _ = try SystemCall.retrying("setsockopt", "SO_REUSEADDR") {
                setsockopt(descriptor.rawValue, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            _ = try SystemCall.retrying("bind", "\(address)") {
                address.withSocketAddress {
                    Glibc.bind(descriptor.rawValue, $0, $1)
                }
            }
            _ = try SystemCall.retrying("listen", "\(address)") { listen(descriptor.rawValue, backlog) }
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = try SystemCall.retrying("getsockname", "\(address)") {
                withUnsafeMutablePointer(to: &bound) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        getsockname(descriptor.rawValue, $0, &length)
                    }
                }
            }
            localAddress = SocketAddress(storage: bound, length: length)
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    /// Listens on `host` (a numeric IPv4 or IPv6 address) and `port` (0: any free one); the error
    /// says why not in words, a bind failure with its usual cause.
    public static func listening(host: String, port: UInt16) throws(Failure) -> TCPListener {
        let address: SocketAddress
        do {
            address = try SocketAddress.resolve(
                SocketAddress.text(host: host, port: port), defaultPort: port, passive: false)
        } catch {
            throw Failure(description: "\(error)")
        }
        do {
            return try TCPListener(listeningOn: address)
        } catch {
            throw Failure(description: SystemCallError.describeBindFailure(error))
        }
    }

    /// Why ``listening(host:port:)`` could not listen.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    deinit { try? descriptor.close() }

    /// The next waiting connection and its peer, or nil when none waits. Errors that concern only
    /// the connection being accepted (it was reset meanwhile) or a passing shortage (no descriptors
    /// or memory left: the caller sees nil and tries again later) are not thrown. `accept4(2)`.
    public func accept() throws(SystemCallError) -> (TCPStream, SocketAddress)? {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let outcome = try SystemCall.attempt(
                "accept4", "\(localAddress)",
                tolerating: [EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO, EMFILE, ENFILE, ENOBUFS, ENOMEM]
            ) {
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        accept4(descriptor.rawValue, $0, &length, flags)
                    }
                }
            }
            switch outcome {
            case .completed(let fd):
                return (
                    TCPStream(descriptor: FileDescriptor(rawValue: fd)), SocketAddress(storage: storage, length: length)
                )
            case .tolerated(let e) where e.rawValue == ECONNABORTED || e.rawValue == EPROTO: continue
            case .tolerated: return nil
            }
        }
    }
}
