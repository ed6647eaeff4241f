import CLinux
import COpenSSL
import Glibc
import Mouse3DCore
import Mouse3DLinux
import VMDeviceEmulators

/// A phone page's client, as the browser is one: TLS (the certificate not checked, as the user
/// accepted it), the WebSocket upgrade, masked frames. Blocking; the VM has no browser, so this
/// speaks the page's protocol (`PhoneMessage`) byte for byte.
final class PhonePageClient: @unchecked Sendable {
    let fd: Int32
    /// OpenSSL's functions (mouse3d opens the library when TLS is first needed; so does this client).
    let lib: m3d_openssl
    let context: OpaquePointer
    let ssl: OpaquePointer

    init(port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        lib = m3d_openssl()!.pointee
        context = lib.SSL_CTX_new(lib.TLS_client_method())!
        lib.SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        ssl = lib.SSL_new(context)!
        try expect(connected == 0, "connect to the phone page: errno \(errno)")
        _ = lib.SSL_set_fd(ssl, fd)
        try expect(lib.SSL_connect(ssl) == 1, "TLS handshake with the phone page")
    }

    deinit {
        lib.SSL_free(ssl)
        lib.SSL_CTX_free(context)
        close(fd)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { lib.SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset)) }
            try expect(n > 0, "TLS write")
            offset += Int(n)
        }
    }

    /// The WebSocket upgrade, as the page's browser sends it; returns the status line.
    func upgrade(port: UInt16) throws -> String {
        try send(
            Array(
                ("GET /stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: https://127.0.0.1:\(port)\r\nConnection: Upgrade\r\n"
                    + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                    .utf8))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { lib.SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        return String(decoding: buffer.prefix(max(0, Int(n))), as: UTF8.self).split(separator: "\r\n").first.map(
            String.init) ?? ""
    }

    /// One masked frame (a browser's).
    func frame(_ opcode: UInt8, _ payload: [UInt8]) throws {
        var f: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            f.append(0x80 | UInt8(payload.count))
        } else {
            f += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [0x5A, 0x17, 0xC3, 0x3E]
        f += mask
        f += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        try send(f)
    }
}

enum PhoneVMTests {
    /// `run --source phone --uinput pointer`: a phone (this client, speaking the page's protocol
    /// over TLS) lying flat streams 60 readings a second with "hold to move" held: 4 s at rest, a
    /// 90° turn about the vertical in 1 s, 2 s still, the turn back, 1 s still. The virtual pointer
    /// moves 1800 counts for the turn (20 per degree), nothing at rest, back to where it started.
    static func pointerFromPhone() throws {
        let home = "/tmp/phone-home"
        FileSystem.setEnvironment("XDG_DATA_HOME", home + "/data")
        FileSystem.setEnvironment("XDG_CONFIG_HOME", home + "/config")
        defer {
            FileSystem.setEnvironment("XDG_DATA_HOME", nil)
            FileSystem.setEnvironment("XDG_CONFIG_HOME", nil)
        }
        let port: UInt16 = 24933
        let run = try ChildProcess(
            executable: mouse3d, arguments: ["run", "--source", "phone:127.0.0.1:\(port)", "--uinput", "pointer"])
        defer {
            try? run.send(signal: SIGTERM)
            _ = try? run.wait()
        }
        var token = ""
        while token.isEmpty, let line = try run.readErrorLine() {
            if line.contains("phone: https://"), let hash = line.firstIndex(of: "#") {
                token = String(
                    line[line.index(after: hash)...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            }
        }
        try expect(token.count == 22, "run printed no phone URL with a token")
        let client = try PhonePageClient(port: port)
        let status = try client.upgrade(port: port)
        try expect(status.hasPrefix("HTTP/1.1 101"), "the page's socket: \(status)")
        try client.frame(1, Array(token.utf8))
        try client.frame(2, PhoneMessage.platform(.standard).encoded)
        try client.frame(2, PhoneMessage.buttons([.holdToMove]).encoded)
        // The script, as a page lying screen up reports it: rotationRate gamma (about z) in °/s.
        let rest = 4.0
        let turn = 1.0
        let pause = 2.0
        let phases: [(seconds: Double, gamma: Double)] = [(rest, 0), (turn, 90), (pause, 0), (turn, -90), (1, 0)]
        let total = phases.reduce(0) { $0 + $1.seconds }
        let started = MonotonicClock.nanoseconds()
        // The page's side, on a thread of its own: readings 60 a second with their own times, sent
        // every 25 ms as the page batches them.
        let streamed = Flag()
        DedicatedThread.start {
            var k = 0
            let count = Int(total * 60)
            while k < count {
                let now = Double(MonotonicClock.nanoseconds() - started) * 1e-9
                var batch: [PhoneReading] = []
                while k < count && Double(k) / 60 <= now {
                    let t = Double(k) / 60
                    var elapsed = 0.0
                    var gamma = 0.0
                    for p in phases {
                        if t < elapsed + p.seconds {
                            gamma = p.gamma
                            break
                        }
                        elapsed += p.seconds
                    }
                    batch.append(
                        PhoneReading(
                            milliseconds: 1000 + Double(k) * 1000 / 60, rotationRate: SIMD3(0, 0, gamma),
                            accelerationIncludingGravity: SIMD3(0, 0, 9.80665)))
                    k += 1
                }
                if !batch.isEmpty { try? client.frame(2, PhoneMessage.readings(batch).encoded) }
                MonotonicClock.sleep(nanoseconds: 25_000_000)
            }
            streamed.set()
        }
        let device = try EvdevDevice(path: try OutputTests.node(named: "mouse3d pointer"))
        func moved(until scriptSeconds: Double) -> (x: Int32, y: Int32) {
            let remaining = max(0, scriptSeconds - Double(MonotonicClock.nanoseconds() - started) * 1e-9)
            let events = OutputTests.events(device, seconds: remaining)
            return (OutputTests.sum(events, code: Int32(REL_X)), OutputTests.sum(events, code: Int32(REL_Y)))
        }
        let atRest = moved(until: rest - 0.2)
        let turned = moved(until: rest + turn + pause - 0.5)
        // Back: until the page's thread sent its last reading (late on a busy machine, never
        // early) and half a second more for the run to carry it, reading the pointer all along.
        var back = moved(until: total + 0.5)
        let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
        while !streamed.isSet && MonotonicClock.nanoseconds() < deadline {
            let more = moved(until: Double(MonotonicClock.nanoseconds() - started) * 1e-9 + 0.1)
            back = (back.x + more.x, back.y + more.y)
        }
        try expect(streamed.isSet, "the page's readings were not all sent in 30 s")
        let tail = moved(until: Double(MonotonicClock.nanoseconds() - started) * 1e-9 + 0.5)
        back = (back.x + tail.x, back.y + tail.y)
        say(
            "VMTEST-INFO run --source phone --uinput pointer: at rest \(atRest), 90° turn \(turned), back \(back); 20 counts per degree promise 1800"
        )
        try expect(atRest.x == 0 && atRest.y == 0, "moved at rest: \(atRest)")
        try expect(abs(abs(Double(turned.x)) - 1800) <= 10, "a 90° turn moved \(turned.x) counts, 1800 ± 10 promised")
        try expect(abs(turned.y) <= 18, "a level turn moved vertically: \(turned.y)")
        let sum = (atRest.x + turned.x + back.x, atRest.y + turned.y + back.y)
        try expect(abs(sum.0) <= 1 && abs(sum.1) <= 1, "turned back, the pointer is \(sum) from the start")
    }
}

/// A flag one thread sets and another waits for.
final class Flag: @unchecked Sendable {
    private var value = false
    private var lock = pthread_mutex_t()
    init() { pthread_mutex_init(&lock, nil) }
    func set() {
        pthread_mutex_lock(&lock)
        value = true
        pthread_mutex_unlock(&lock)
    }
    var isSet: Bool {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return value
    }
    func wait(seconds: Double) -> Bool {
        let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while MonotonicClock.nanoseconds() < end {
            if isSet { return true }
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        return isSet
    }
}
