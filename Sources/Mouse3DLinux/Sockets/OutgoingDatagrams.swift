import CLinux
import Glibc

/// Datagrams to send with one `sendmmsg(2)` (``UDPSocket/send(_:)``), each to its own address: a
/// sender serving several receivers hands the kernel one frame's datagrams in one call. Buffers,
/// headers and addresses are allocated once; owned by one thread.
public final class OutgoingDatagrams {
    /// Most datagrams one batch holds.
    public var capacity: Int { slots.capacity }
    /// Most bytes of one datagram.
    public var bufferSize: Int { slots.bufferSize }
    /// Datagrams appended since the last ``removeAll()``.
    public private(set) var count = 0
    /// How sending each went, by the order appended (after ``UDPSocket/send(_:)``).
    public internal(set) var outcomes: [UDPSocket.SendOutcome] = []
    let slots: MessageSlots

    /// Room for `capacity` datagrams of up to `bufferSize` bytes.
    public init(capacity: Int, bufferSize: Int = 256) {
        slots = MessageSlots(capacity: capacity, bufferSize: bufferSize)
        outcomes.reserveCapacity(capacity)
    }

    /// Forgets the datagrams appended (and their outcomes).
    public func removeAll() {
        count = 0
        outcomes.removeAll(keepingCapacity: true)
    }

    /// Adds a copy of `bytes` (at most ``bufferSize``), to be sent to `address`.
    public func append(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) {
        precondition(count < capacity, "\(capacity) datagrams already appended")
        precondition(bytes.count <= bufferSize, "a datagram of \(bytes.count) bytes in buffers of \(bufferSize)")
        if let base = bytes.baseAddress { slots.buffer(count).copyMemory(from: base, byteCount: bytes.count) }
        slots.addresses[count] = address.raw
        slots.point(count, length: bytes.count, addressLength: address.length)
        count += 1
    }
}

extension UDPSocket {
    /// Sends every datagram of `batch` with `sendmmsg(2)`, filling its ``OutgoingDatagrams/outcomes``
    /// in order. The kernel stops at the first datagram it refuses and reports only how many went
    /// before it, so the call is made again from the refused one, which then fails at once with its
    /// reason; errors a streaming sender rides out (as for ``send(_:to:)``) are outcomes, the rest
    /// are thrown (the outcomes then hold those sent before it).
    public func send(_ batch: OutgoingDatagrams) throws(SystemCallError) {
        batch.outcomes.removeAll(keepingCapacity: true)
        var start = 0
        while start < batch.count {
            let outcome = try SystemCall.attempt("sendmmsg", "UDP socket", tolerating: Self.survivable) {
                mouse3d_sendmmsg(
                    descriptor.rawValue, batch.slots.headers + start, UInt32(batch.count - start), Int32(MSG_NOSIGNAL))
            }
            switch outcome {
            case .completed(let sent) where sent > 0:
                for _ in 0..<Int(sent) { batch.outcomes.append(.sent) }
                start += Int(sent)
            case .completed:
                // None sent and no error: not seen from Linux; counted as a full buffer, not looped on.
                batch.outcomes.append(.notDelivered(.resourceTemporarilyUnavailable))
                start += 1
            case .tolerated(let errno):
                batch.outcomes.append(.notDelivered(errno))
                start += 1
            }
        }
    }
}
