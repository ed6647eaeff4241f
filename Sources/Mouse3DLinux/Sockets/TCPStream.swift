import CLinux
import Glibc
import SystemPackage

/// One accepted TCP connection, non-blocking. Closed on deinit.
public final class TCPStream {
    /// The descriptor, for the event loop.
    public let descriptor: FileDescriptor

    init(descriptor: FileDescriptor) { self.descriptor = descriptor }

    deinit { try? descriptor.close() }

    /// What one read gave.
    public enum ReadOutcome: Equatable, Sendable {
        /// This many bytes.
        case bytes(Int)
        /// Nothing waiting now.
        case wouldBlock
        /// The peer closed its side, or the connection was reset.
        case closed
    }

    /// What the first byte waiting is, left in the socket.
    public enum Peeked: Equatable, Sendable {
        case byte(UInt8), wouldBlock, closed
    }

    /// The first byte waiting, without taking it. `recv(2)` with `MSG_PEEK`.
    public func peekFirstByte() -> Peeked {
        var byte: UInt8 = 0
        let outcome = try? SystemCall.attempt(
            "recv", "TCP connection", tolerating: [EAGAIN, EWOULDBLOCK, ECONNRESET, ETIMEDOUT]
        ) {
            recv(descriptor.rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        }
        switch outcome {
        case .completed(1)?: return .byte(byte)
        case .tolerated(let e)? where e.rawValue == EAGAIN || e.rawValue == EWOULDBLOCK: return .wouldBlock
        default: return .closed
        }
    }

    /// Reads what is waiting into `buffer`. `read(2)`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> ReadOutcome {
        let outcome = try SystemCall.attempt(
            "read", "TCP connection", tolerating: [EAGAIN, EWOULDBLOCK, ECONNRESET, ETIMEDOUT]
        ) {
            Glibc.read(descriptor.rawValue, buffer.baseAddress, buffer.count)
        }
        switch outcome {
        case .completed(0): return .closed
        case .completed(let n): return .bytes(n)
        case .tolerated(let e) where e.rawValue == EAGAIN || e.rawValue == EWOULDBLOCK: return .wouldBlock
        case .tolerated: return .closed
        }
    }

    /// Writes as much of `bytes` as the socket takes now: the count written (0 when its buffer is
    /// full), or nil when the peer is gone. `send(2)` with `MSG_NOSIGNAL`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int? {
        guard bytes.count > 0 else { return 0 }
        let outcome = try SystemCall.attempt(
            "send", "TCP connection", tolerating: [EAGAIN, EWOULDBLOCK, EPIPE, ECONNRESET, ETIMEDOUT]
        ) {
            send(descriptor.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
        switch outcome {
        case .completed(let n): return n
        case .tolerated(let e) where e.rawValue == EAGAIN || e.rawValue == EWOULDBLOCK: return 0
        case .tolerated: return nil
        }
    }

    /// The address and port this connection arrived at (on a listener bound to every address, the
    /// machine's address the peer used), or nil if the kernel cannot say. `getsockname(2)`.
    public func localAddress() -> SocketAddress? {
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = try? SystemCall.retrying("getsockname", "TCP connection") {
            withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor.rawValue, $0, &length) }
            }
        }
        return ok == nil ? nil : SocketAddress(storage: bound, length: length)
    }

    /// Caps the kernel's send buffer for this connection (so a reader that stalls holds at most this much).
    public func setSendBufferSize(_ bytes: Int32) {
        var v = bytes
        _ = try? SystemCall.retrying("setsockopt", "SO_SNDBUF") {
            setsockopt(descriptor.rawValue, SOL_SOCKET, SO_SNDBUF, &v, socklen_t(MemoryLayout<Int32>.size))
        }
    }
}
