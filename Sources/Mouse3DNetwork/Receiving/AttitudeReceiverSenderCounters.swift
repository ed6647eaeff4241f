import Mouse3DCore
import Mouse3DLinux

extension AttitudeReceiver {
    /// Counts per sender address, since the receiver started (senders that had a frame accepted;
    /// what other sources cost is only in the totals, so a flood from many addresses takes no memory).
    public struct SenderCounters: Sendable, Equatable {
        /// Counters starting from these values.
        public init(frames: UInt64 = 0, dropped: UInt64 = 0, lost: UInt64 = 0, reordered: UInt64 = 0) {
            self.frames = frames
            self.dropped = dropped
            self.lost = lost
            self.reordered = reordered
        }

        /// Frames accepted.
        public var frames: UInt64 = 0
        /// Datagrams refused as invalid (size, magic, version, kind, angles).
        public var dropped: UInt64 = 0
        /// Frames skipped in sequence.
        public var lost: UInt64 = 0
        /// Frames that came after a newer one.
        public var reordered: UInt64 = 0
    }
}
