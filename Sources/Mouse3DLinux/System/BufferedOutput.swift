import SystemPackage

/// A byte buffer in front of a file descriptor (standard output by default), flushed when it fills,
/// on `flush()`, and on deinit. Owned by one thread at a time.
public final class BufferedOutput {
    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
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

    /// Writes out whatever is buffered. The corresponding C call is `write(2)`, retried on `EINTR`.
    public func flush() throws(SystemCallError) {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        do {
            _ = try buffer.withUnsafeBytes { try descriptor.writeAll($0) }
        } catch {
            throw SystemCallError(
                call: "write", subject: "fd \(descriptor.rawValue)", errno: error as? Errno ?? .ioError)
        }
    }
}
