/// Plays a log's samples in order, once or looped, and says when each is due relative to the start
/// of playing. Looped passes get timestamps shifted past the previous pass, so a filter sees time
/// run on instead of jumping back. The samples come in batches (``MotionSampleBatches``): from
/// memory, or read from a file as they are played.
public struct MotionLogPlayer {
    /// Whether to start over after the last sample.
    public let loops: Bool
    /// Playback speed as a factor of real time; `nil` plays as fast as possible (everything is due now).
    public let speed: Double?

    private var batches: any MotionSampleBatches
    private var batch: [MotionSample] = []
    private var index = 0
    private var ended = false
    private let span: MotionLogSpan
    private var passOffsetNanoseconds: Int64 = 0
    private let passDurationNanoseconds: Int64

    /// A player for `samples` (at least one).
    public init(samples: [MotionSample], loops: Bool, speed: Double?) {
        precondition(!samples.isEmpty, "a log has at least one sample")
        self.init(span: MotionLogSpan(of: samples), batches: SamplesInMemory(samples), loops: loops, speed: speed)
    }

    /// A player for the log whose pass `span` describes, its samples taken from `batches`.
    public init(span: MotionLogSpan, batches: some MotionSampleBatches, loops: Bool, speed: Double?) {
        self.span = span
        self.batches = batches
        self.loops = loops
        self.speed = speed
        let length = span.lastTimestampNanoseconds - span.firstTimestampNanoseconds
        // One more nominal period so that the first sample of the next pass follows the last.
        let period = span.sampleCount > 1 ? length / Int64(span.sampleCount - 1) : 10_000_000
        passDurationNanoseconds = length + max(period, 1)
    }

    /// The next sample (timestamps shifted on looped passes), or `nil` when done. Throws what
    /// reading the next batch throws, and ``MotionLogChanged`` when a pass read again is not the
    /// one the span describes (the file was changed while it was played).
    public mutating func peek() throws -> MotionSample? {
        while index >= batch.count {
            guard !ended else { return nil }
            batch = try batches.next()
            index = 0
            if batch.isEmpty {
                guard loops else {
                    ended = true
                    return nil
                }
                try batches.restart()
                passOffsetNanoseconds += passDurationNanoseconds
                batch = try batches.next()
                if batch.isEmpty { throw MotionLogChanged() }
            }
        }
        var sample = batch[index]
        guard sample.timestampNanoseconds >= span.firstTimestampNanoseconds,
            sample.timestampNanoseconds <= span.lastTimestampNanoseconds
        else { throw MotionLogChanged() }
        sample.timestampNanoseconds += passOffsetNanoseconds
        return sample
    }

    /// When the next sample is due, in nanoseconds after playing started (0 at maximum speed).
    public mutating func nextDueNanoseconds() throws -> UInt64? {
        guard let sample = try peek() else { return nil }
        guard let speed else { return 0 }
        let elapsed = Double(sample.timestampNanoseconds - span.firstTimestampNanoseconds) / speed
        return UInt64(max(0, elapsed.rounded()))
    }

    /// Moves past the next sample (after ``peek()`` gave it).
    public mutating func advance() { index += 1 }
}
