import CLinux
import Glibc

/// Storage for `capacity` datagrams of up to `bufferSize` bytes each, with their addresses and the
/// `mmsghdr`s that point at them: what ``DatagramBatch`` reads into with `recvmmsg(2)` and
/// ``OutgoingDatagrams`` sends from with `sendmmsg(2)`. Allocated once; owned by one thread.
final class MessageSlots {
    let capacity: Int
    let bufferSize: Int
    let buffers: UnsafeMutableRawPointer
    let headers: UnsafeMutablePointer<mouse3d_mmsghdr>
    let vectors: UnsafeMutablePointer<iovec>
    /// IPv4 and IPv6 addresses (a `sockaddr_in` is a `sockaddr_in6`'s first 16 bytes).
    let addresses: UnsafeMutablePointer<sockaddr_in6>

    init(capacity: Int, bufferSize: Int) {
        precondition(capacity > 0 && bufferSize > 0)
        self.capacity = capacity
        self.bufferSize = bufferSize
        buffers = .allocate(byteCount: capacity * bufferSize, alignment: 16)
        headers = .allocate(capacity: capacity)
        vectors = .allocate(capacity: capacity)
        addresses = .allocate(capacity: capacity)
        addresses.initialize(repeating: sockaddr_in6(), count: capacity)
        for i in 0..<capacity { point(i, length: bufferSize, addressLength: 0) }
    }

    deinit {
        buffers.deallocate()
        headers.deallocate()
        vectors.deallocate()
        addresses.deallocate()
    }

    /// Slot `i`'s buffer.
    func buffer(_ i: Int) -> UnsafeMutableRawPointer { buffers + i * bufferSize }

    /// Points header `i` at the first `length` bytes of its buffer and at its address, of
    /// `addressLength` bytes (the room there, for reading: the kernel writes the real length).
    func point(_ i: Int, length: Int, addressLength: socklen_t) {
        vectors[i] = iovec(iov_base: buffer(i), iov_len: length)
        var header = msghdr()
        header.msg_name = UnsafeMutableRawPointer(addresses + i)
        header.msg_namelen = addressLength
        header.msg_iov = vectors + i
        header.msg_iovlen = 1
        headers[i] = mouse3d_mmsghdr(msg_hdr: header, msg_len: 0)
    }
}

/// Buffers for reading many datagrams with one `recvmmsg(2)` (``UDPSocket/receive(into:limit:)``):
/// `capacity` datagrams of up to `bufferSize` bytes each, with their senders and real lengths.
/// Allocated once; owned by one thread.
public final class DatagramBatch {
    /// Most datagrams one call reads.
    public var capacity: Int { slots.capacity }
    /// Bytes kept of each datagram (a longer one is cut; ``length(_:)`` says how long it was).
    public var bufferSize: Int { slots.bufferSize }
    /// How many the last call read. (Read for every datagram's bounds check; only its owner's
    /// thread touches it: no run-time exclusivity checks.)
    @exclusivity(unchecked) public internal(set) var count = 0
    let slots: MessageSlots

    /// Room for `capacity` datagrams of `bufferSize` bytes.
    public init(capacity: Int = 64, bufferSize: Int = 2048) {
        slots = MessageSlots(capacity: capacity, bufferSize: bufferSize)
        prepare(upTo: capacity)
    }

    /// Resets the headers of the first `n` slots for the next call (the kernel writes name lengths
    /// and flags into them).
    func prepare(upTo n: Int) {
        for i in 0..<n {
            slots.point(i, length: slots.bufferSize, addressLength: socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
    }

    /// Datagram `i`'s bytes as kept (at most ``bufferSize``).
    public func bytes(_ i: Int) -> UnsafeRawBufferPointer {
        precondition(i >= 0 && i < count, "datagram \(i) of \(count) read")
        return UnsafeRawBufferPointer(start: slots.buffer(i), count: min(length(i), slots.bufferSize))
    }

    /// Datagram `i`'s real length (more than ``bufferSize`` when it was cut).
    public func length(_ i: Int) -> Int {
        precondition(i >= 0 && i < count, "datagram \(i) of \(count) read")
        return Int(slots.headers[i].msg_len)
    }

    /// Who sent datagram `i`.
    public func sender(_ i: Int) -> SocketAddress {
        precondition(i >= 0 && i < count, "datagram \(i) of \(count) read")
        return SocketAddress(bytes: slots.addresses + i, length: slots.headers[i].msg_hdr.msg_namelen)
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
                mouse3d_recvmmsg_direct(
                    descriptor.rawValue, batch.slots.headers, UInt32(n), Int32(MSG_TRUNC) | MOUSE3D_MSG_WAITFORONE)
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
