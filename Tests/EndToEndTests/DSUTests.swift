import Foundation
import Glibc
import Testing

/// A DSU (cemuhook protocol 1001) client written from the protocol's public description, sharing
/// nothing with the server's code: its own CRC (bitwise, not table-driven), its own packet layout.
struct DSUClient {
    let fd: Int32
    let port: UInt16
    let clientID: UInt32 = 0x1234_5678

    /// A UDP socket bound to `address` (any 127.x.y.z works on Linux loopback).
    init(serverPort: UInt16, bindTo address: String = "127.0.0.1") throws {
        port = serverPort
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        try #require(fd >= 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(address)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0, "bind \(address)")
        var size: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func close() { Glibc.close(fd) }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    static func u32(_ v: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8((v >> $0) & 0xff) } }
    static func readU32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
    static func readFloat(_ b: [UInt8], _ o: Int) -> Float { Float(bitPattern: readU32(b, o)) }

    /// A client packet: magic DSUC, version 1001, length, CRC, id, type, payload.
    func packet(type: UInt32, payload: [UInt8], corruptCRC: Bool = false, magic: String = "DSUC", lengthDelta: Int = 0)
        -> [UInt8]
    {
        var p =
            Array(magic.utf8) + Self.u16(1001) + Self.u16(UInt16(4 + payload.count + lengthDelta)) + [0, 0, 0, 0]
            + Self.u32(clientID)
            + Self.u32(type) + payload
        var crc = Self.crc32(p)
        if corruptCRC { crc ^= 1 }
        p.replaceSubrange(8..<12, with: Self.u32(crc))
        return p
    }

    func send(_ bytes: [UInt8]) {
        var server = sockaddr_in()
        server.sin_family = sa_family_t(AF_INET)
        server.sin_port = port.bigEndian
        server.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &server) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The datagrams waiting now.
    func drain() -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 { return out }
            out.append(Array(buffer[0..<n]))
        }
    }

    /// Every datagram that arrives within `seconds`.
    func receive(seconds: Double) -> [[UInt8]] { receive(until: { _ in false }, seconds: seconds) }

    /// The datagrams that arrive until `done` holds for them (checked after each) or `seconds` pass:
    /// a deadline that only bounds a failure.
    func receive(until done: ([[UInt8]]) -> Bool, seconds: Double) -> [[UInt8]] {
        var out: [[UInt8]] = []
        let end = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 2048)
        while Date() < end && !done(out) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 20) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { out.append(Array(buffer[0..<n])) }
        }
        return out
    }

    /// Whether a server packet is well-formed: magic, version, length, CRC.
    static func valid(_ p: [UInt8]) -> Bool {
        guard p.count >= 20, Array(p[0..<4]) == Array("DSUS".utf8), p[4] == 0xE9, p[5] == 0x03,
            Int(p[6]) | Int(p[7]) << 8 == p.count - 16
        else { return false }
        var zeroed = p
        zeroed.replaceSubrange(8..<12, with: [0, 0, 0, 0])
        return crc32(zeroed) == readU32(p, 8)
    }

    static func type(_ p: [UInt8]) -> UInt32 { readU32(p, 16) }

    func subscribeAll() { send(packet(type: 0x100002, payload: [0, 0, 0, 0, 0, 0, 0, 0])) }
}

@Suite("DSU server: an independent client against a running mouse3d")
struct DSUTests {
    /// The sample log's rows: time (s), gyroscope (rad/s), accelerometer (m/s²).
    static func logRows() throws -> [(t: Double, g: [Double], a: [Double])] {
        let text = try String(contentsOfFile: Mouse3DProcess.sampleLog, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let v = line.split(separator: ",").map { Double($0) ?? .nan }
            return (v[0], [v[1], v[2], v[3]], [v[4], v[5], v[6]])
        }
    }

    /// The documented mapping from a log's (IIO) frame (x right, y forward, z up) to DSU (README
    /// "DSU"): accelerometer (X, Y, Z) = (-x, -z, y) in g; gyroscope (pitch, yaw, roll) = (x, -z, y) in °/s.
    static func expected(_ row: (t: Double, g: [Double], a: [Double])) -> [Float] {
        let g = 9.80665
        let d = 180 / Double.pi
        return [-row.a[0] / g, -row.a[2] / g, row.a[1] / g, row.g[0] * d, -row.g[2] * d, row.g[1] * d].map { Float($0) }
    }

    static func runWithDSU() throws -> (Mouse3DProcess, UInt16) {
        let home = Mouse3DProcess.makeConfigHome()
        let run = try Mouse3DProcess(
            ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--loop", "--dsu", "127.0.0.1:0"],
            configHome: home, environment: ["HOME": home])
        #expect(run.waitForError(containing: "DSU server at 127.0.0.1:", seconds: 20), "\(run.errors)")
        let port = run.errors.split(separator: "\n").first { $0.contains("DSU server at") }
            .flatMap { UInt16($0.split(separator: "127.0.0.1:")[1].prefix { $0.isNumber }) }
        if port == nil { _ = run.terminate() }
        return (run, try #require(port, "\(run.errors)"))
    }

    @Test(
        "Version and controller information; 5 s of pad data at the log's rate, valid and equal to the log; a second client; malformed requests unanswered"
    )
    func stream() throws {
        let (run, port) = try Self.runWithDSU()
        defer { _ = run.terminate() }
        let client = try DSUClient(serverPort: port)
        defer { client.close() }

        client.send(client.packet(type: 0x100000, payload: []))
        let version = client.receive(until: { $0.count >= 1 }, seconds: 20)
        #expect(
            version.count == 1 && DSUClient.valid(version[0]) && DSUClient.type(version[0]) == 0x100000
                && version[0].count == 22 && version[0][20] == 0xE9 && version[0][21] == 0x03, "\(version)")

        client.send(client.packet(type: 0x100001, payload: DSUClient.u32(4) + [0, 1, 2, 3]))
        let info = client.receive(until: { $0.count >= 4 }, seconds: 20).filter {
            DSUClient.valid($0) && DSUClient.type($0) == 0x100001
        }
        #expect(info.count == 4 && info.allSatisfy { $0.count == 32 }, "\(info.map(\.count))")
        if let slot0 = info.first(where: { $0[20] == 0 }) {
            #expect(slot0[21] == 2 && slot0[22] == 2, "slot 0 connected with a full gyro")
            #expect(slot0[24..<30].contains { $0 != 0 }, "a non-zero MAC")
        }
        #expect(info.filter { $0[20] != 0 }.allSatisfy { $0[21] == 0 }, "the other slots are not connected")

        // Malformed requests: none is answered.
        for bad in [
            client.packet(type: 0x100000, payload: [], corruptCRC: true),
            client.packet(type: 0x100000, payload: [], magic: "DSUS"),
            client.packet(type: 0x100000, payload: [], lengthDelta: 9),
            Array(client.packet(type: 0x100000, payload: []).prefix(12)),
            client.packet(type: 0x100001, payload: DSUClient.u32(9) + [0]),
            client.packet(type: 0x110002, payload: [0, 0, 0, 0, 0, 0, 0, 0, 0, 255])
        ] {
            client.send(bad)
        }
        // A valid request after them marks the end: the server reads in order, so what it answered
        // of them came before the marker's answer.
        client.send(client.packet(type: 0x100000, payload: []))
        let answered = client.receive(until: { $0.contains { DSUClient.type($0) == 0x100000 } }, seconds: 20)
        #expect(
            answered.count == 1 && DSUClient.type(answered[0]) == 0x100000,
            "a malformed request was answered: \(answered.map { DSUClient.type($0) })")

        // Two clients subscribe for all slots and renew every second.
        let second = try DSUClient(serverPort: port)
        defer { second.close() }
        var packets: [[UInt8]] = []
        var secondPackets: [[UInt8]] = []
        let listening = Date()
        for _ in 0..<5 {
            client.subscribeAll()
            second.subscribeAll()
            packets += client.receive(seconds: 1)
            secondPackets += second.receive(seconds: 0.01)
        }
        // At most 100 a second for as long as the first client listened (about 5.05 s; longer when
        // this thread waits for a CPU), and no fewer than 90 a second over its 5 s: the last
        // subscription lasts 5 s more, so what a starved server sends late is still counted.
        let (had, secondHad) = (packets.count, secondPackets.count)
        packets += client.receive(until: { had + $0.count >= 450 }, seconds: 4)
        secondPackets += second.receive(until: { secondHad + $0.count >= 450 }, seconds: 4)
        let listened = Date().timeIntervalSince(listening)
        print("dsu: \(packets.count) and \(secondPackets.count) pad packets in \(listened) s to two clients")
        #expect(
            packets.count >= 450 && Double(packets.count) <= listened * 100 + 15,
            "\(packets.count) packets in \(listened) s of a 100 Hz log")
        #expect(secondPackets.count >= 450, "the second client got \(secondPackets.count)")
        #expect(packets.allSatisfy { DSUClient.valid($0) && DSUClient.type($0) == 0x100002 && $0.count == 100 })
        let numbers = packets.map { DSUClient.readU32($0, 32) }
        #expect(
            numbers.first == 0 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 },
            "packet numbers consecutive from 0")
        let times = packets.map { $0[68..<76].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let gaps = zip(times, times.dropFirst()).map { Int64($1) - Int64($0) }
        #expect(
            gaps.allSatisfy { abs($0 - 10_000) <= 1 },
            "timestamps 10 ms apart like the log: \(Set(gaps).sorted().prefix(5))")

        // The values are the log's, converted, within float precision.
        let rows = try Self.logRows()
        let values = packets.map { p in (0..<6).map { DSUClient.readFloat(p, 76 + 4 * $0) } }
        guard
            let start = rows.indices.first(where: { i in
                zip(Self.expected(rows[i]), values[0]).allSatisfy { abs($0 - $1) <= 1e-4 * max(1, abs($0)) }
            })
        else { return #expect(Bool(false), "the first packet matches no row of the log: \(values[0])") }
        var mismatches = 0
        for (k, v) in values.enumerated() {
            let want = Self.expected(rows[(start + k) % rows.count])
            if !zip(want, v).allSatisfy({ abs($0 - $1) <= 1e-5 * max(1, abs($0)) }) { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(mismatches) of \(values.count) packets differ from the log")

        // Without renewals the stream stops after 5 s.
        _ = client.receive(seconds: 5.5)
        #expect(client.receive(seconds: 1).isEmpty, "still sending 5 s after the last request")
        _ = run.terminate()
        #expect(
            run.errors.contains("bad-crc 1") && run.errors.contains("bad-magic 1")
                && run.errors.contains("bad-length 1")
                && run.errors.contains("short 1") && run.errors.contains("malformed 1")
                && run.errors.contains("unsupported 1"), "\(run.errors)")
    }

    @Test(
        "Subscriptions from 40 addresses: at most 8 are served, 2 per address, and the first clients keep their stream")
    func bounded() throws {
        let (run, port) = try Self.runWithDSU()
        defer { _ = run.terminate() }
        let first = try DSUClient(serverPort: port, bindTo: "127.0.0.1")
        defer { first.close() }
        first.subscribeAll()
        _ = first.receive(seconds: 0.5)
        var crowd: [DSUClient] = []
        defer { for c in crowd { c.close() } }
        for i in 0..<40 { crowd.append(try DSUClient(serverPort: port, bindTo: "127.0.\(1 + i / 20).\(2 + i % 20)")) }
        let sameAddress = try (0..<3).map { _ in try DSUClient(serverPort: port, bindTo: "127.0.0.1") }
        defer { for c in sameAddress { c.close() } }
        for c in sameAddress + crowd { c.subscribeAll() }
        var counts = [Int](repeating: 0, count: crowd.count + sameAddress.count)
        var firstCount = 0
        // 2 s, and on (up to 20 s) until the first client has had 150: a starved server sends late.
        let started = Date()
        while Date().timeIntervalSince(started) < 2 || (firstCount < 150 && Date().timeIntervalSince(started) < 20) {
            firstCount += first.receive(seconds: 0.02).count
            for (i, c) in (sameAddress + crowd).enumerated() { counts[i] += c.drain().count }
        }
        let elapsed = Date().timeIntervalSince(started)
        let served = counts.filter { $0 > 0 }.count + 1
        let total = counts.reduce(0, +) + firstCount
        print(
            "dsu: \(served) of \(crowd.count + sameAddress.count + 1) subscribers served; \(total) packets in 2 s (bound \(8 * 100 * 2))"
        )
        #expect(served == 8, "\(served) subscribers served")
        #expect(
            counts.prefix(sameAddress.count).filter { $0 > 0 }.count == 1,
            "not exactly 2 from 127.0.0.1: \(counts.prefix(3))")
        #expect(firstCount >= 150, "the first client lost its stream: \(firstCount) packets in \(elapsed) s")
        #expect(Double(total) <= 8 * 100 * max(2, elapsed) * 1.15, "the outgoing rate passed the bound: \(total)")
        _ = run.terminate()
        #expect(
            run.errors.contains("too-many-clients") && run.errors.contains("too-many-from-address"), "\(run.errors)")
    }
}

/// What an opentrack "UDP over network" input would receive: a UDP socket on 127.0.0.1 (any
/// free port) whose datagrams are read as six little-endian doubles.
struct OpentrackListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        try #require(fd >= 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var size: Int32 = 8 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        port = UInt16(bigEndian: local.sin_port)
    }

    func close() { Glibc.close(fd) }

    /// The poses waiting (x, y, z, yaw, pitch, roll), and how many datagrams were not 48 bytes.
    func poses() -> (poses: [[Double]], wrongSize: Int) {
        var poses: [[Double]] = []
        var wrongSize = 0
        var buffer = [UInt8](repeating: 0, count: 128)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 { return (poses, wrongSize) }
            guard n == 48 else {
                wrongSize += 1
                continue
            }
            poses.append(
                (0..<6).map { k in
                    Double(
                        bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(buffer[8 * k + $1]) << (8 * UInt64($1)) })
                })
        }
    }
}

@Suite("opentrack output against a running mouse3d")
struct OpentrackTests {
    @Test("One 48-byte datagram per frame, equal to the printed attitude in opentrack's signs, frame for frame")
    func poses() throws {
        let listener = try OpentrackListener()
        defer { listener.close() }
        let port = listener.port
        let home = Mouse3DProcess.makeConfigHome()
        let r = try runMouse3D(
            [
                "run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "8", "--print", "--format", "jsonl",
                "--opentrack", "127.0.0.1:\(port)"
            ],
            configHome: home, environment: ["HOME": home])
        #expect(r.status == 0, "\(r.errors)")
        let (poses, wrongSize) = listener.poses()
        #expect(wrongSize == 0, "\(wrongSize) datagrams were not 48 bytes")
        let printed = r.output.split(separator: "\n").compactMap { line -> [Double]? in
            func number(_ key: String) -> Double? {
                guard let range = line.range(of: "\"\(key)\":") else { return nil }
                return Double(line[range.upperBound...].prefix { $0 != "," && $0 != "}" })
            }
            guard let roll = number("roll"), let pitch = number("pitch"), let yaw = number("yaw") else { return nil }
            return [roll, pitch, yaw].map { $0 * 180 / .pi }
        }
        print("opentrack: \(poses.count) datagrams, \(printed.count) printed frames")
        #expect(
            poses.count == printed.count && poses.count > 1000, "\(poses.count) datagrams for \(printed.count) frames")
        var mismatches = 0
        for (pose, frame) in zip(poses, printed) {
            // x, y, z zero; yaw = -yaw, pitch = -pitch, roll = -roll (printed floats have 9 digits).
            let ok =
                pose[0] == 0 && pose[1] == 0 && pose[2] == 0 && abs(pose[3] + frame[2]) < 1e-4
                && abs(pose[4] + frame[1]) < 1e-4
                && abs(pose[5] + frame[0]) < 1e-4
            if !ok { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(mismatches) poses differ from the printed frames")
        #expect(r.errors.contains("opentrack: \(poses.count) poses sent"), "\(r.errors)")
    }
}
