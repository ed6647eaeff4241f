/// A log's first and last timestamps and its number of samples: what a player needs to know of a
/// pass before it has read it (to shift looped passes on in time).
public struct MotionLogSpan: Sendable, Equatable {
    public var firstTimestampNanoseconds: Int64
    public var lastTimestampNanoseconds: Int64
    /// At least one.
    public var sampleCount: Int

    public init(firstTimestampNanoseconds: Int64, lastTimestampNanoseconds: Int64, sampleCount: Int) {
        self.firstTimestampNanoseconds = firstTimestampNanoseconds
        self.lastTimestampNanoseconds = lastTimestampNanoseconds
        self.sampleCount = sampleCount
    }

    /// The span of `samples` (at least one).
    public init(of samples: [MotionSample]) {
        self.init(
            firstTimestampNanoseconds: samples[0].timestampNanoseconds,
            lastTimestampNanoseconds: samples[samples.count - 1].timestampNanoseconds, sampleCount: samples.count)
    }
}
