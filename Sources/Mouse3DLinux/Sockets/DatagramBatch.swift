import CLinux
import Glibc

/// Buffers for reading many datagrams with one `recvmmsg(2)` (``UDPSocket/receive(into:limit:)``):
/// `capacity` datagrams of up to `bufferSize` bytes each, with their senders and real lengths.
/// Allocated once; owned by one thread.
public final class DatagramBatch {
    /// Most datagrams one call reads.
    public let capacity: Int
    /// Bytes kept of each datagram (a longer one is cut; ``length(_:)`` says how long it was).
    public let bufferSize: Int
    /// How many the last call read.
    public internal(set) var count = 0
    let buffers: UnsafeMutableRawPointer
    let headers: UnsafeMutablePointer<mouse3d_mmsghdr>
    private let vectors: UnsafeMutablePointer<iovec>
    private let addresses: UnsafeMutablePointer<sockaddr_storage>

    /// Room for `capacity` datagrams of `bufferSize` bytes.
    public init(capacity: Int = 64, bufferSize: Int = 2048) {
        precondition(capacity > 0 && bufferSize > 0)
        self.capacity = capacity
        self.bufferSize = bufferSize
        buffers = .allocate(byteCount: capacity * bufferSize, alignment: 16)
        headers = .allocate(capacity: capacity)
        vectors = .allocate(capacity: capacity)
        addresses = .allocate(capacity: capacity)
        for i in 0..<capacity {
            vectors[i] = iovec(iov_base: buffers + i * bufferSize, iov_len: bufferSize)
            addresses[i] = sockaddr_storage()
        }
        prepare(upTo: capacity)
    }

    deinit {
        buffers.deallocate()
        headers.deallocate()
        vectors.deallocate()
        addresses.deallocate()
    }

    /// Resets the headers of the first `n` slots for the next call (the kernel writes name lengths
    /// and flags into them).
    func prepare(upTo n: Int) {
        for i in 0..<n {
            var header = msghdr()
            header.msg_name = UnsafeMutableRawPointer(addresses + i)
            header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            header.msg_iov = vectors + i
            header.msg_iovlen = 1
            headers[i] = mouse3d_mmsghdr(msg_hdr: header, msg_len: 0)
        }
    }

    /// Datagram `i`'s bytes as kept (at most ``bufferSize``).
    public func bytes(_ i: Int) -> UnsafeRawBufferPointer {
        precondition(i >= 0 && i < count, "datagram \(i) of \(count) read")
        return UnsafeRawBufferPointer(start: buffers + i * bufferSize, count: min(length(i), bufferSize))
    }

    /// Datagram `i`'s real length (more than ``bufferSize`` when it was cut).
    public func length(_ i: Int) -> Int {
        precondition(i >= 0 && i < count, "datagram \(i) of \(count) read")
        return Int(headers[i].msg_len)
    }

    /// Who sent datagram `i`.
    public func sender(_ i: Int) -> SocketAddress {
        precondition(i >= 0 && i < count, "datagram \(i) of \(count) read")
        return SocketAddress(bytes: addresses + i, length: headers[i].msg_hdr.msg_namelen)
    }
}

extension UDPSocket {
    /// Reads up to `limit` (at most the batch's capacity) waiting datagrams with one `recvmmsg(2)`;
    /// returns how many (0 when none is waiting). Lengths are the datagrams' real ones (`MSG_TRUNC`);
    /// on a blocking socket it returns once one is in (`MSG_WAITFORONE`).
    public func receive(into batch: DatagramBatch, limit: Int? = nil) throws(SystemCallError) -> Int {
        let n = min(limit ?? batch.capacity, batch.capacity)
        batch.prepare(upTo: batch.count)
        batch.count = 0
        guard n > 0 else { return 0 }
        // ECONNREFUSED can be queued on an unconnected socket by an ICMP error: not ours to stop for.
        while true {
            let outcome = try SystemCall.attempt(
                "recvmmsg", "UDP socket", tolerating: [EAGAIN, EWOULDBLOCK, ECONNREFUSED]
            ) {
                mouse3d_recvmmsg(
                    descriptor.rawValue, batch.headers, UInt32(n), Int32(MSG_TRUNC) | MOUSE3D_MSG_WAITFORONE, nil)
            }
            switch outcome {
            case .completed(let received):
                batch.count = Int(received)
                return batch.count
            case .tolerated(.connectionRefused): continue
            case .tolerated: return 0
            }
        }
    }
}
