import Mouse3DCore
import Mouse3DLinux

extension AttitudeReceiver {
    /// Something the user may want to hear about.
    public enum Event: Sendable {
        /// A valid, newest frame, as the outputs take it (its stream's label made once per stream).
        case frame(AttitudeUpdate)
        /// A new stream started.
        case streamStarted(StreamKey)
        /// A stream fell silent (no frames for 500 ms).
        case streamLost(StreamKey)
        /// A silent stream is back.
        case streamResumed(StreamKey)
        /// A stream was forgotten to make room for a new one of the same sender (or, unauthenticated,
        /// of anyone): the least recently heard, beyond ``maximumStreamsPerSender``.
        case streamDropped(StreamKey)
        /// Datagrams from `source` were refused (reported on the first and then at most every ten
        /// seconds per source): `count` since the last report, the latest `reason`, and the paired
        /// sender's id the datagram claimed, if any.
        case refused(source: SocketAddress, count: UInt64, reason: Refusal, claimedSender: [UInt8]?)
        /// A paired sender started a new epoch (it restarted): worth storing.
        case sessionStarted(PairedPeer)
        /// Datagrams refused in the last interval from sources beyond those reported one by one (a
        /// flood from many addresses is summed here, so the log stays short): how many sources
        /// (at least), how many datagrams, and why.
        case refusedElsewhere(sources: Int, reasons: RefusalCounts)
    }
}
