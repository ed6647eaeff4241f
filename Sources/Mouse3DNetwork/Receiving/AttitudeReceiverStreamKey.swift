import Mouse3DCore
import Mouse3DLinux

extension AttitudeReceiver {
    /// A stream: who sent it and its id (0 for raw frames, which carry none).
    public struct StreamKey: Hashable, Sendable, CustomStringConvertible {
        /// Creates a key.
        public init(sender: SocketAddress, streamID: UInt32, peerName: String? = nil, senderKey: UInt64 = 0) {
            self.sender = sender
            self.streamID = streamID
            self.peerName = peerName
            self.senderKey = senderKey
        }

        /// The sender's address (for a paired sender, the one its stream was first heard from).
        public var sender: SocketAddress
        /// The stream id the sender chose.
        public var streamID: UInt32
        /// The paired sender's name (sealed streams only).
        public var peerName: String?
        /// The paired sender's id (sealed streams only; 0 otherwise). Part of the key: two paired
        /// senders sending from one address with one stream id (one spoofing the other's source)
        /// are two streams, and neither can make the other's frames stale.
        public var senderKey: UInt64
        /// Equal when stream id and sender are, and for an unauthenticated stream its address too.
        /// A paired sender's stream is its own whatever address a datagram comes from (both are
        /// authenticated; the address is not): a late or captured datagram re-sent from another
        /// address meets the stream's "newest wins" and is stale, instead of starting a stream of
        /// its own (a click injected, the live stream pushed out); a sender whose address changes
        /// keeps its stream. The name follows from the sender; not hashed per frame.
        public static func == (a: StreamKey, b: StreamKey) -> Bool {
            a.streamID == b.streamID && a.senderKey == b.senderKey && (a.senderKey != 0 || a.sender == b.sender)
        }
        public func hash(into hasher: inout Hasher) {
            if senderKey == 0 { hasher.combine(sender) }
            hasher.combine(streamID)
            hasher.combine(senderKey)
        }
        public var description: String {
            let who = peerName.map { "'\($0)' (\(sender))" } ?? "\(sender)"
            return streamID == 0 ? who : "\(who) stream \(String(streamID, radix: 16))"
        }
    }
}
