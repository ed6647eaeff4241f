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

    /// Plays `file` as it is read (memory bounded by a chunk, whatever the log's length).
    public init(file: MotionLogFile, loops: Bool, speed: Double?) {
        player = MotionLogPlayer(span: file.span, batches: file, loops: loops, speed: speed)
        path = file.path
    }

    public var summary: String { "replay:\(path)" }

    /// The largest batch delivered in one go.
    public static let batchLimit = 256

    public func start(on loop: EventLoop, sink: MotionSampleSink) {
        start = MonotonicClock.nanoseconds()
        var batch: [MotionSample] = []
        batch.reserveCapacity(Self.batchLimit)
        // The deadline cannot throw: a failure to read the next batch (a file gone or changed) is
        // kept and thrown from the timer, which then runs at once.
        var failure: (any Error)?
        func due() -> UInt64? {
            guard failure == nil else { return 0 }
            do { return try player.nextDueNanoseconds() } catch {
                failure = error
                return 0
            }
        }
        registration = loop.timer(deadline: { [unowned self] in due().map { start + $0 } }) {
            [unowned self] now in
            if let failure { throw failure }
            batch.removeAll(keepingCapacity: true)
            while batch.count < Self.batchLimit, let due = try player.nextDueNanoseconds(), start + due <= now,
                let sample = try player.peek()
            {
                batch.append(sample)
                player.advance()
            }
            if !batch.isEmpty { try sink.samples(batch) }
            if try player.nextDueNanoseconds() == nil {
                if let registration { loop.cancel(registration) }
                registration = nil
                try sink.ended()
            }
        }
    }
}
