/// Plays a log's samples in order, once or looped, and says when each is due relative to the start
/// of playing. Looped passes get timestamps shifted past the previous pass, so a filter sees time
/// run on instead of jumping back.
public struct MotionLogPlayer: Sendable {
    /// The samples of one pass.
    public let samples: [MotionSample]
    /// Whether to start over after the last sample.
    public let loops: Bool
    /// Playback speed as a factor of real time; `nil` plays as fast as possible (everything is due now).
    public let speed: Double?

    private var index = 0
    private var passOffsetNanoseconds: Int64 = 0
    private let passDurationNanoseconds: Int64
    private let firstTimestamp: Int64

    /// A player for `samples` (at least one).
    public init(samples: [MotionSample], loops: Bool, speed: Double?) {
        precondition(!samples.isEmpty, "a log has at least one sample")
        self.samples = samples
        self.loops = loops
        self.speed = speed
        firstTimestamp = samples[0].timestampNanoseconds
        let span = samples[samples.count - 1].timestampNanoseconds - firstTimestamp
        // One more nominal period so that the first sample of the next pass follows the last.
        let period = samples.count > 1 ? span / Int64(samples.count - 1) : 10_000_000
        passDurationNanoseconds = span + max(period, 1)
    }

    /// The next sample (timestamps shifted on looped passes), or `nil` when done.
    public func peek() -> MotionSample? {
        guard index < samples.count else { return nil }
        var sample = samples[index]
        sample.timestampNanoseconds += passOffsetNanoseconds
        return sample
    }

    /// When the next sample is due, in nanoseconds after playing started (0 at maximum speed).
    public func nextDueNanoseconds() -> UInt64? {
        guard let sample = peek() else { return nil }
        guard let speed else { return 0 }
        let elapsed = Double(sample.timestampNanoseconds - firstTimestamp) / speed
        return UInt64(max(0, elapsed.rounded()))
    }

    /// Moves past the next sample.
    public mutating func advance() {
        index += 1
        if index == samples.count && loops {
            index = 0
            passOffsetNanoseconds += passDurationNanoseconds
        }
    }
}
