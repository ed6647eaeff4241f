/// Bytes waiting for a non-blocking socket, and how many of them it has taken: what the live view
/// and the phone page hold for each connection.
public struct OutboundQueue: Sendable {
    /// What is queued, written or not.
    public private(set) var bytes: [UInt8] = []
    /// How many of ``bytes`` the socket has taken.
    public private(set) var sent = 0

    /// An empty queue.
    public init() {}

    /// Whether bytes wait to be written.
    public var isPending: Bool { sent < bytes.count }
    /// How many bytes wait.
    public var held: Int { bytes.count - sent }

    /// Queues `more`: behind what is pending, or alone when nothing is. False, and nothing queued,
    /// when more than `limit` bytes would then wait behind a socket that has stopped taking them
    /// (one message on an idle connection is always taken).
    public mutating func enqueue(_ more: [UInt8], limit: Int) -> Bool {
        if isPending {
            guard held + more.count <= limit else { return false }
            bytes += more
        } else {
            bytes = more
            sent = 0
        }
        return true
    }

    /// How far a ``drain(_:)`` got.
    public enum Drained: Sendable, Equatable {
        /// All written; the queue is empty.
        case empty
        /// The socket takes no more now; the rest waits.
        case blocked
        /// The connection is gone.
        case failed
    }

    /// Hands what waits to `write` (how many bytes the socket took: 0 when it would block, nil when
    /// the connection is gone) until all is written or it takes no more; `progressed` says whether
    /// any byte went.
    public mutating func drain(_ write: (UnsafeRawBufferPointer) -> Int?) -> (Drained, progressed: Bool) {
        var progressed = false
        while isPending {
            let n = bytes.withUnsafeBytes { all in write(UnsafeRawBufferPointer(rebasing: all[sent...])) }
            guard let written = n else { return (.failed, progressed) }
            if written == 0 { return (.blocked, progressed) }
            sent += written
            progressed = true
        }
        bytes = []
        sent = 0
        return (.empty, progressed)
    }
}
