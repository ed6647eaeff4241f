import Glibc
import SystemPackage

/// A byte buffer in front of a file descriptor (standard output by default), flushed when it fills,
/// on `flush()`, and on deinit. Owned by one thread at a time.
public final class BufferedOutput {
    private let descriptor: FileDescriptor
    /// The buffer: memory of its own, so that a line is written straight into it
    /// (``writeLine(atMost:_:)``; an array has no room past its count a caller may write into).
    /// Touched only by its owner's thread: no run-time exclusivity checks.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var allocated: Int
    @exclusivity(unchecked) private var used = 0
    /// Lines made in an array (``writeLine(_:)-(([UInt8])->Void)``), reused.
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    private let capacity: Int
    private let ownsDescriptor: Bool
    /// Room past `capacity` for the line that crosses it (a longer line is flushed before).
    private static let slack = 4096

    /// Output to `descriptor`, written in chunks of about `capacity` bytes.
    public init(descriptor: FileDescriptor = .standardOutput, capacity: Int = 1 << 16) {
        self.descriptor = descriptor
        self.capacity = capacity
        ownsDescriptor = false
        allocated = capacity + Self.slack
        storage = .allocate(capacity: allocated)
    }

    /// Output to a file created (or truncated) at `path`, mode 0644, closed on deinit.
    ///
    /// The corresponding C call is `open(2)` with `O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC`.
    public init(creatingFileAt path: String, capacity: Int = 1 << 16) throws(SystemCallError) {
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead], retryOnInterrupt: true)
        } catch {
            throw SystemCallError(call: "open", subject: path, errno: error as? Errno ?? .ioError)
        }
        self.capacity = capacity
        ownsDescriptor = true
        allocated = capacity + Self.slack
        storage = .allocate(capacity: allocated)
    }

    deinit {
        try? flush()
        if ownsDescriptor { try? descriptor.close() }
        storage.deallocate()
    }

    /// Appends `text` and a newline.
    public func writeLine(_ text: String) throws(SystemCallError) {
        var text = text
        // withUTF8 rethrows untyped: the error is carried out by hand.
        var failure: SystemCallError?
        text.withUTF8 { line in
            do throws(SystemCallError) { try writeLine(copying: line) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Appends what `fill` writes into an array, and a newline.
    public func writeLine(_ fill: (inout [UInt8]) -> Void) throws(SystemCallError) {
        scratch.removeAll(keepingCapacity: true)
        fill(&scratch)
        try scratch.withUnsafeBufferPointer { line throws(SystemCallError) in try writeLine(copying: line) }
    }

    /// Appends a copy of `line`, and a newline.
    private func writeLine(copying line: UnsafeBufferPointer<UInt8>) throws(SystemCallError) {
        try writeLine(atMost: line.count) { start in
            if let base = line.baseAddress { start.update(from: base, count: line.count) }
            return line.count
        }
    }

    /// Appends a line of at most `maximum` bytes that `write` puts at the address it is given
    /// (returning how many it wrote), and a newline: no copy in between.
    public func writeLine(atMost maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int)
        throws(SystemCallError)
    {
        if used + maximum + 1 > allocated {
            try flush()
            if maximum + 1 > allocated {
                storage.deallocate()
                allocated = maximum + 1
                storage = .allocate(capacity: allocated)
            }
        }
        let count = write(storage + used)
        precondition(count <= maximum, "a line wrote past the room it asked for")
        used += count
        storage[used] = UInt8(ascii: "\n")
        used += 1
        if used >= capacity { try flush() }
    }

    /// Writes out whatever is buffered, and empties the buffer (also when the write fails). The
    /// corresponding C call is `write(2)`, retried on `EINTR` (through the shim) and after a
    /// partial write. (swift-system's `writeAll`, generic over a sequence, cost about 770
    /// instructions a flush: a receiver flushes at every wake-up.)
    public func flush() throws(SystemCallError) {
        guard used > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: storage, count: used)
        used = 0
        try SystemCall.writeAll(descriptor.rawValue, bytes, "fd \(descriptor.rawValue)")
    }
}
