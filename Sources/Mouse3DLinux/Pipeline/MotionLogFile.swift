import Mouse3DCore
import SystemPackage

/// A motion log read from its file as it is played, a chunk at a time: memory stays bounded by a
/// chunk (16 kB and its samples) however long the log is. Opening it reads it through once to check
/// every line (errors name the file and line before anything plays) and to learn its span; each
/// pass reads it again. Closed on deinit.
public final class MotionLogFile: MotionSampleBatches {
    /// The log's path.
    public let path: String
    /// Its first and last timestamps and sample count, from the check.
    public let span: MotionLogSpan
    /// The frame its header says (``MotionLog/frame``), or nil.
    public let frame: String?
    private var descriptor: FileDescriptor?
    /// Whether this pass has opened the file (at its end it is closed again).
    private var passStarted = false
    private var parser: MotionLogParser
    /// 16 kB a read: 80 to 450 samples, by the log's columns and digits; a few reads a second at 1 kHz.
    private var chunk = [UInt8](repeating: 0, count: 1 << 14)

    /// Opens and checks the log at `path`. Throws ``SystemCallError`` when it cannot be read and
    /// ``MotionLogError`` when a line is not a sample (or there is none).
    public init(path: String) throws {
        self.path = path
        var first: Int64?
        var last: Int64 = 0
        var count = 0
        var check = MotionLogParser(file: path)
        func note(_ samples: [MotionSample]) {
            guard let s = samples.last else { return }
            if first == nil { first = samples[0].timestampNanoseconds }
            last = s.timestampNanoseconds
            count += samples.count
        }
        try FileContents.forEachChunk(path: path) { bytes in
            try check.consume(bytes)
            note(check.takeSamples())
        }
        note(try check.finishTaking())
        guard let first else { throw MotionLogError(file: path, line: nil, reason: .noSamples) }
        span = MotionLogSpan(firstTimestampNanoseconds: first, lastTimestampNanoseconds: last, sampleCount: count)
        frame = check.frame
        parser = MotionLogParser(file: path, readsTruth: false)
    }

    deinit { try? descriptor?.close() }

    /// The samples of the next chunk that holds any; empty at the end of the pass.
    public func next() throws -> [MotionSample] {
        if !passStarted { try open() }
        while let fd = descriptor {
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0, retryOnInterrupt: true) }
            } catch {
                throw SystemCallError(call: "read", subject: path, errno: error as? Errno ?? .ioError)
            }
            if n == 0 {
                try? fd.close()
                descriptor = nil
                return try parser.finishTaking()
            }
            try parser.consume(n == chunk.count ? chunk : Array(chunk[0..<n]))
            let samples = parser.takeSamples()
            if !samples.isEmpty { return samples }
        }
        return []
    }

    /// Reads the log again from its start.
    public func restart() throws {
        try? descriptor?.close()
        descriptor = nil
        parser = MotionLogParser(file: path, readsTruth: false)
        try open()
    }

    private func open() throws {
        passStarted = true
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .readOnly, options: [.closeOnExec], retryOnInterrupt: true)
        } catch {
            throw SystemCallError(call: "open", subject: path, errno: error as? Errno ?? .ioError)
        }
    }
}
