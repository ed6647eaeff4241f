/// Where a ``MotionLogPlayer`` takes a log's samples from: a pass at a time, in batches, so that a
/// log read from a file is played in memory bounded by a batch, however long it is.
public protocol MotionSampleBatches {
    /// The next samples of the current pass, in order; empty once the pass has ended.
    mutating func next() throws -> [MotionSample]
    /// Starts another pass at the first sample.
    mutating func restart() throws
}
