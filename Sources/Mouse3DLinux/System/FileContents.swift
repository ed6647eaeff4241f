import SystemPackage

/// Whole-file reads through one descriptor, with errors that name the file.
public enum FileContents {
    /// Reads every byte of the file at `path`.
    ///
    /// The corresponding C calls are `open(2)`, `read(2)` (retried on `EINTR`) and `close(2)`.
    public static func read(path: String) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            try forEachChunk(path: path) { bytes += $0 }
        } catch let error as SystemCallError {
            throw error
        } catch {
            throw SystemCallError(call: "read", subject: path, errno: .ioError)  // the body above cannot throw
        }
        return bytes
    }

    /// Reads the file at `path` in chunks of up to `chunkSize` bytes, handing each to `body`.
    public static func forEachChunk(
        path: String, chunkSize: Int = 1 << 16, _ body: ([UInt8]) throws -> Void
    ) throws {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec], retryOnInterrupt: true)
        } catch {
            throw SystemCallError(call: "open", subject: path, errno: error as? Errno ?? .ioError)
        }
        defer { try? fd.close() }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0, retryOnInterrupt: true) }
            } catch {
                throw SystemCallError(call: "read", subject: path, errno: error as? Errno ?? .ioError)
            }
            if n == 0 { return }
            try body(n == chunkSize ? chunk : Array(chunk[0..<n]))
        }
    }
}
