import Foundation
import Glibc
import Mouse3DCore
import Testing

@testable import Mouse3DLinux

/// The bus connection against a bus that misbehaves (or a local user who floods it): a fake bus on
/// a Unix socket answers the authentication, then sends what it is given.
@Suite("D-Bus connection under hostile traffic")
struct DBusConnectionTests {
    /// A listening socket at a fresh path; `serve` runs on a thread with the accepted descriptor
    /// once the client's authentication has been answered.
    func fakeBus(_ serve: @escaping @Sendable (Int32) -> Void) throws -> String {
        let path = "/tmp/mouse3d-fakebus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(listener, 1) == 0)
        Thread.detachNewThread {
            let fd = accept(listener, nil, nil)
            close(listener)
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while !(line.suffix(2) == [13, 10]) && read(fd, &byte, 1) == 1 { line.append(byte) }
            let ok = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)
            _ = write(fd, ok, ok.count)
            serve(fd)
        }
        return path
    }

    /// Keeps the fake bus's side open until the client closes its own (reading and dropping what it
    /// sends), or 60 s: the client reads everything first however slow the machine (a fixed sleep
    /// here closed a 4.5 MB flood after 16,384 of its 40,000 messages on a busy machine).
    static func holdUntilClosed(_ fd: Int32) {
        let deadline = Date().addingTimeInterval(60)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) >= 0 else { break }
            if p.revents != 0 && read(fd, &buffer, buffer.count) <= 0 { break }
        }
        close(fd)
    }

    static func signal(_ member: String, serial: UInt32, body: [UInt8] = [], signature: String = "") -> [UInt8] {
        var m = DBusMessage(kind: .signal)
        (m.path, m.interface, m.member, m.serial, m.sender) = ("/x", "a.b", member, serial, ":1.9")
        (m.body, m.signature) = (body, signature)
        return m.encoded()
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Receives until `count` messages came (or 5 s passed), with the number read per call.
    func receive(_ bus: DBusConnection, count: Int) throws -> (messages: [DBusMessage], perCall: [Int]) {
        var messages: [DBusMessage] = []
        var perCall: [Int] = []
        let deadline = Date().addingTimeInterval(60)  // bounds a failure only: the count ends it
        while messages.count < count && Date() < deadline {
            let got = try bus.receive()
            if !got.isEmpty { perCall.append(got.count) }
            messages += got
            if got.isEmpty { usleep(1000) }
        }
        return (messages, perCall)
    }

    @Test("A message over 1 MiB and a malformed one are dropped and counted; the connection and what follows stay")
    func oversizedAndMalformed() throws {
        var writer = DBusWriter()
        writer.byteArray([UInt8](repeating: 7, count: 1_200_000))
        let huge = writer.bytes
        var bad = Self.signal("Bad", serial: 3)
        bad[18] = UInt8(ascii: "x")  // the PATH field's type: 'o' becomes 'x', lengths intact
        let malformed = bad
        let path = try fakeBus { fd in
            Self.send(fd, Self.signal("First", serial: 1))
            Self.send(fd, Self.signal("Huge", serial: 2, body: huge, signature: "ay"))
            Self.send(fd, malformed)
            Self.send(fd, Self.signal("Last", serial: 4))
            Self.holdUntilClosed(fd)
        }
        let bus = try DBusConnection(address: .path(path))
        defer { unlink(path) }
        let (messages, _) = try receive(bus, count: 2)
        #expect(messages.map(\.member) == ["First", "Last"])
        #expect(bus.dropped == 2)
    }

    @Test("A flood is read a bounded slice at a time, so the loop gets back to its other work between slices")
    func flood() throws {
        let count = 40_000  // about 4.5 MB of small signals
        let path = try fakeBus { fd in
            var all: [UInt8] = []
            for i in 0..<count { all += Self.signal("S", serial: UInt32(i + 1)) }
            Self.send(fd, all)
            Self.holdUntilClosed(fd)
        }
        let bus = try DBusConnection(address: .path(path))
        defer { unlink(path) }
        usleep(300_000)  // let the bus queue what the socket takes
        let (messages, perCall) = try receive(bus, count: count)
        #expect(messages.count == count)
        // What one call reads: the limit, overshot by at most one 16 kB read, and a message left over.
        let size = Self.signal("S", serial: 1).count
        let perCallLimit = (DBusConnection.readLimit + 16384) / size + 1
        #expect(perCall.allSatisfy { $0 <= perCallLimit }, "at most \(perCallLimit) a call: \(perCall.max() ?? 0)")
        #expect(perCall.count > 10)
    }
}
