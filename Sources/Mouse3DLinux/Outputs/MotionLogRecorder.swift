import Mouse3DCore

/// Writes raw samples to a motion log (`t,gx,gy,gz,ax,ay,az`, seconds from the first sample),
/// flushed after every batch so that a recording ended by a signal or a crash keeps everything up
/// to that point. Owned by the event loop's thread.
public final class MotionLogRecorder {
    private let out: BufferedOutput
    private var first: Int64?
    /// Samples written.
    public private(set) var count = 0

    /// Creates (or truncates) the log at `path` and writes its header, saying the samples' `frame`
    /// if known (``MotionLog/frame``).
    public init(path: String, frame: String? = nil) throws(SystemCallError) {
        out = try BufferedOutput(creatingFileAt: path)
        try out.writeLine(MotionLogWriter.header(frame: frame))
        try out.flush()
    }

    /// Appends a batch of samples and flushes it.
    public func write(_ samples: [MotionSample]) throws {
        for var sample in samples {
            let t0 = first ?? sample.timestampNanoseconds
            first = t0
            sample.timestampNanoseconds -= t0
            try out.writeLine(MotionLogWriter.row(sample))
            count += 1
        }
        try out.flush()
    }

    /// Writes out whatever is buffered.
    public func flush() throws { try out.flush() }
}
