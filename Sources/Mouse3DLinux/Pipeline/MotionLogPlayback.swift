import Mouse3DCore

/// A recorded motion log played in time on the event loop: each sample is delivered when it is due
/// (at the chosen speed, or all at once at maximum speed, in batches of at most 256 so that signals
/// and other work are seen between them), once or looped. Owned by the loop's thread.
public final class MotionLogPlayback: MotionSampleSource {
    private var player: MotionLogPlayer
    private var start: UInt64 = 0
    private var registration: EventLoop.Registration?
    /// The log's path, for messages.
    public let path: String

    /// Plays `samples` (at least one) read from `path`; `speed` is a factor of real time, nil for
    /// as fast as possible.
    public init(samples: [MotionSample], path: String, loops: Bool, speed: Double?) {
        player = MotionLogPlayer(samples: samples, loops: loops, speed: speed)
        self.path = path
    }

    public var summary: String { "replay:\(path)" }

    /// The largest batch delivered in one go.
    public static let batchLimit = 256

    public func start(on loop: EventLoop, sink: MotionSampleSink) {
        start = MonotonicClock.nanoseconds()
        var batch: [MotionSample] = []
        batch.reserveCapacity(Self.batchLimit)
        registration = loop.timer(deadline: { [unowned self] in player.nextDueNanoseconds().map { start + $0 } }) {
            [unowned self] now in
            batch.removeAll(keepingCapacity: true)
            while batch.count < Self.batchLimit, let due = player.nextDueNanoseconds(), start + due <= now,
                let sample = player.peek()
            {
                batch.append(sample)
                player.advance()
            }
            if !batch.isEmpty { try sink.samples(batch) }
            if player.nextDueNanoseconds() == nil {
                if let registration { loop.cancel(registration) }
                registration = nil
                try sink.ended()
            }
        }
    }
}
