import Mouse3DCore
import Mouse3DLinux

extension AttitudeReceiver {
    /// A stream: who sent it and its id (0 for raw frames, which carry none).
    /// Plain data (no reference inside): copied and compared per frame without retains. The paired
    /// sender's name is the stream's label's (``AttitudeReceiver/describe(_:)``).
    public struct StreamKey: Hashable, Sendable, CustomStringConvertible {
        /// Creates a key.
        public init(sender: SocketAddress, streamID: UInt32, senderKey: UInt64 = 0) {
            self.sender = sender
            self.streamID = streamID
            self.senderKey = senderKey
        }

        /// The sender's address (for a paired sender, the one its stream was first heard from).
        public var sender: SocketAddress
        /// The stream id the sender chose.
        public var streamID: UInt32
        /// The paired sender's id (sealed streams only; 0 otherwise). Part of the key: two paired
        /// senders sending from one address with one stream id (one spoofing the other's source)
        /// are two streams, and neither can make the other's frames stale.
        public var senderKey: UInt64
        /// Equal when stream id and sender are, and for an unauthenticated stream its address too.
        /// A paired sender's stream is its own whatever address a datagram comes from (both are
        /// authenticated; the address is not): a late or captured datagram re-sent from another
        /// address meets the stream's "newest wins" and is stale, instead of starting a stream of
        /// its own (a click injected, the live stream pushed out); a sender whose address changes
        /// keeps its stream.
        public static func == (a: StreamKey, b: StreamKey) -> Bool {
            a.streamID == b.streamID && a.senderKey == b.senderKey && (a.senderKey != 0 || a.sender == b.sender)
        }
        public func hash(into hasher: inout Hasher) {
            if senderKey == 0 { hasher.combine(sender) }
            hasher.combine(streamID)
            hasher.combine(senderKey)
        }
        /// The address and stream id (`127.0.0.1:5000 stream 2a`).
        public var description: String { description(peer: nil) }
        /// With the paired sender's name (`'laptop' (127.0.0.1:5000) stream 2a`).
        public func description(peer: String?) -> String {
            let who = peer.map { "'\($0)' (\(sender))" } ?? "\(sender)"
            return streamID == 0 ? who : "\(who) stream \(String(streamID, radix: 16))"
        }
    }
}
