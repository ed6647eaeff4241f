import Glibc
import SystemPackage

/// A byte buffer in front of a file descriptor (standard output by default), flushed when it fills,
/// on `flush()`, and on deinit. Owned by one thread at a time.
public final class BufferedOutput {
    private let descriptor: FileDescriptor
    /// Touched only by its owner's thread; a line's `fill` gets it inout and must not write to this
    /// output itself: no run-time exclusivity checks (two a printed frame).
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private let capacity: Int
    private let ownsDescriptor: Bool

    /// Output to `descriptor`, written in chunks of about `capacity` bytes.
    public init(descriptor: FileDescriptor = .standardOutput, capacity: Int = 1 << 16) {
        self.descriptor = descriptor
        self.capacity = capacity
        ownsDescriptor = false
        buffer.reserveCapacity(capacity)
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
        buffer.reserveCapacity(capacity)
    }

    deinit {
        try? flush()
        if ownsDescriptor { try? descriptor.close() }
    }

    /// Appends `text` and a newline.
    public func writeLine(_ text: String) throws(SystemCallError) {
        try writeLine { $0.append(contentsOf: text.utf8) }
    }

    /// Appends what `fill` writes into the buffer, and a newline (no string in between).
    public func writeLine(_ fill: (inout [UInt8]) -> Void) throws(SystemCallError) {
        fill(&buffer)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= capacity { try flush() }
    }

    /// Writes out whatever is buffered. The corresponding C call is `write(2)`, retried on `EINTR`
    /// (through the shim) and after a partial write. (swift-system's `writeAll`, generic over a
    /// sequence, cost about 770 instructions a flush: a receiver flushes at every wake-up.)
    public func flush() throws(SystemCallError) {
        guard !buffer.isEmpty else { return }
        try Self.writeOut(&buffer, to: descriptor.rawValue)
    }

    /// Writes `buffer` to `fd` and empties it (also when the write fails). Given the buffer
    /// inout: read from the property, its storage was retained and released around every write.
    private static func writeOut(_ buffer: inout [UInt8], to fd: Int32) throws(SystemCallError) {
        defer { buffer.removeAll(keepingCapacity: true) }
        let failure: SystemCallError? = buffer.withUnsafeBytes { bytes in
            do throws(SystemCallError) {
                try SystemCall.writeAll(fd, bytes, "fd \(fd)")
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }
}
