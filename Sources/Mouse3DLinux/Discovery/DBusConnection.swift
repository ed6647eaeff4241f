import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// A client connection to a D-Bus bus over its Unix socket: the `EXTERNAL` authentication (the
/// kernel tells the bus who we are), then messages both ways (``DBusMessage``), non-blocking, for
/// an event loop. Closed on deinit.
final class DBusConnection {
    /// The socket, for the event loop.
    let descriptor: FileDescriptor
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var nextSerial: UInt32 = 1

    /// Messages not yet taken by the bus past this many bytes mean the bus has stopped reading:
    /// the connection is given up (``send(_:)`` throws) rather than grow without bound.
    static let maximumQueued = 1 << 20

    /// Connects and authenticates (waiting up to `timeoutMilliseconds` for the bus's answer). A
    /// `blocking` connection waits as long for each ``receive()`` (for one question and its answer,
    /// off any event loop); otherwise nothing waits.
    init(address: DBusAddress, timeoutMilliseconds: Int32 = 2000, blocking: Bool = false) throws(DiscoveryUnavailable) {
        let place: String
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        var pathBytes: [UInt8]
        switch address {
        case .path(let path):
            place = path
            pathBytes = Array(path.utf8)
        case .abstract(let name):
            place = "@" + name
            pathBytes = [0] + Array(name.utf8)
        }
        let capacity = MemoryLayout.size(ofValue: socketAddress.sun_path)
        guard pathBytes.count < capacity else {
            throw DiscoveryUnavailable(reason: "the system bus address '\(place)' is too long")
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            raw.copyBytes(from: pathBytes)
        }
        let fd: Int32
        do {
            fd = try SystemCall.retrying("socket", "system bus") {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch { throw DiscoveryUnavailable(reason: "\(error)") }
        descriptor = FileDescriptor(rawValue: fd)
        do {
            // Bounded waits for connecting (a full listen queue) and for the authentication's answer.
            var timeout = timeval(
                tv_sec: Int(timeoutMilliseconds / 1000), tv_usec: Int(timeoutMilliseconds % 1000) * 1000)
            for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
                _ = try SystemCall.retrying("setsockopt", "system bus") {
                    setsockopt(fd, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
                }
            }
            _ = try SystemCall.retrying("connect", "the system bus at \(place)") {
                withUnsafePointer(to: &socketAddress) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
                }
            }
            try authenticate(timeoutMilliseconds: timeoutMilliseconds, where: place)
            if !blocking {
                let flags = try SystemCall.retrying("fcntl", "system bus") { fcntl(fd, F_GETFL) }
                _ = try SystemCall.retrying("fcntl", "system bus") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
            }
        } catch let error as DiscoveryUnavailable {
            throw error
        } catch {
            throw DiscoveryUnavailable(reason: "cannot reach the system bus (\(error))")
        }
    }

    deinit { try? descriptor.close() }

    /// `AUTH EXTERNAL` with our uid, then `BEGIN` once the bus says OK (blocking, with a timeout).
    private func authenticate(timeoutMilliseconds: Int32, where: String) throws {
        let uid = Array(String(getuid()).utf8)
        let hex = uid.map { String($0, radix: 16) }.joined()
        try writeAll(Array("\0AUTH EXTERNAL \(hex)\r\n".utf8))
        var line: [UInt8] = []
        var end: Int?
        while end == nil {
            guard line.count < 512 else {
                throw DiscoveryUnavailable(reason: "the system bus answered with a line too long")
            }
            var chunk = [UInt8](repeating: 0, count: 512 - line.count)
            // The socket's receive timeout bounds the wait.
            let n = try chunk.withUnsafeMutableBytes { raw in
                try SystemCall.retrying("read", "system bus", tolerating: [EAGAIN, EWOULDBLOCK]) {
                    read(descriptor.rawValue, raw.baseAddress, raw.count)
                }
            }
            guard let n else { throw DiscoveryUnavailable(reason: "the system bus at \(`where`) did not answer") }
            guard n > 0 else {
                throw DiscoveryUnavailable(reason: "the system bus at \(`where`) closed the connection")
            }
            line += chunk[..<n]
            end = line.indices.dropFirst().first { line[$0 - 1] == 13 && line[$0] == 10 }
        }
        // A bus sends nothing more before BEGIN; whatever came after the line is kept for receive().
        if let end {
            input = Array(line[(end + 1)...])
            line = Array(line[...end])
        }
        guard line.starts(with: Array("OK ".utf8)) else {
            let text = String(decoding: line.prefix(80).filter { $0 != 13 && $0 != 10 }, as: UTF8.self)
            throw DiscoveryUnavailable(reason: "the system bus refused us (\(TerminalText.escaped(text)))")
        }
        try writeAll(Array("BEGIN\r\n".utf8))
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = try bytes[sent...].withUnsafeBytes { raw in
                try SystemCall.retrying("send", "system bus") {
                    Glibc.send(descriptor.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                }
            }
            sent += n
        }
    }

    /// Queues `message` with the next serial and writes what the socket takes; returns the serial.
    /// Throws when the connection is gone or the bus has stopped reading.
    @discardableResult
    func send(_ message: DBusMessage) throws(DiscoveryUnavailable) -> UInt32 {
        var m = message
        m.serial = nextSerial
        nextSerial = nextSerial == .max ? 1 : nextSerial + 1
        output += m.encoded()
        try flush()
        return m.serial
    }

    /// Writes what is queued, as far as the socket takes it.
    func flush() throws(DiscoveryUnavailable) {
        while !output.isEmpty {
            let outcome: SystemCall.Outcome<Int>
            do {
                outcome = try output.withUnsafeBytes { raw in
                    try SystemCall.attempt("send", "system bus", tolerating: [EAGAIN, EWOULDBLOCK, EPIPE, ECONNRESET]) {
                        Glibc.send(descriptor.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                    }
                }
            } catch { throw DiscoveryUnavailable(reason: "\(error)") }
            switch outcome {
            case .completed(let n): output.removeFirst(n)
            case .tolerated(let e) where e.rawValue == EAGAIN || e.rawValue == EWOULDBLOCK:
                guard output.count <= Self.maximumQueued else {
                    throw DiscoveryUnavailable(reason: "the system bus stopped reading")
                }
                return
            case .tolerated: throw DiscoveryUnavailable(reason: "the system bus went away")
            }
        }
    }

    /// Read at most this much per call: a bus that has queued more for us (anyone on the system bus
    /// may send us signals, and dbus-daemon queues up to 127 MiB) is read on the loop's next turns,
    /// never all at once.
    static let readLimit = 64 << 10
    /// Bytes of a message longer than ``DBusMessage/maximumLength`` still to be skipped.
    private var skipping = 0
    /// Messages skipped: longer than ``DBusMessage/maximumLength``, or whole but malformed.
    private(set) var dropped: UInt64 = 0

    /// The whole messages among what the socket has (at most ``readLimit`` read; a blocking
    /// connection waits for some up to its timeout). A message too long or malformed is dropped
    /// and counted, and the connection goes on; it throws only when the bus closed the connection
    /// or sent bytes that cannot start a message (the stream is lost).
    func receive() throws(DiscoveryUnavailable) -> [DBusMessage] {
        var chunk = [UInt8](repeating: 0, count: 16384)
        var total = 0
        reading: while total < Self.readLimit {
            let outcome: SystemCall.Outcome<Int>
            do {
                outcome = try chunk.withUnsafeMutableBytes { raw in
                    try SystemCall.attempt("read", "system bus", tolerating: [EAGAIN, EWOULDBLOCK, ECONNRESET]) {
                        read(descriptor.rawValue, raw.baseAddress, raw.count)
                    }
                }
            } catch { throw DiscoveryUnavailable(reason: "\(error)") }
            switch outcome {
            case .completed(0): throw DiscoveryUnavailable(reason: "the system bus closed the connection")
            case .completed(let n):
                total += n
                let skipped = min(skipping, n)
                skipping -= skipped
                input += chunk[skipped..<n]
                if n < chunk.count { break reading }
            case .tolerated(let e) where e.rawValue == EAGAIN || e.rawValue == EWOULDBLOCK: break reading
            case .tolerated: throw DiscoveryUnavailable(reason: "the system bus closed the connection")
            }
        }
        var messages: [DBusMessage] = []
        var start = 0
        while input.count - start >= 16 {
            let length: Int
            do {
                length = try DBusMessage.length(of: input[start...]) ?? 0
            } catch {
                throw DiscoveryUnavailable(reason: "the system bus sent \(error)")
            }
            if length > DBusMessage.maximumLength {
                dropped += 1
                let available = input.count - start
                skipping = max(0, length - available)
                start += min(length, available)
                continue
            }
            guard input.count - start >= length else { break }
            if let message = try? DBusMessage.decode(Array(input[start..<start + length])) {
                messages.append(message)
            } else {
                dropped += 1
            }
            start += length
        }
        input.removeFirst(start)
        return messages
    }
}
