import Foundation
import Testing

@testable import Mouse3DCore

/// The D-Bus codec against messages other implementations wrote (libdbus in dbus-daemon, Avahi and
/// dbus-send; GLib's GDBus in gdbus), recorded on a real bus (Fixtures/dbus/messages.txt says how),
/// a big-endian message assembled by hand from the specification, and damaged copies of them all.
@Suite("D-Bus messages")
struct DBusMessageTests {
    static let fixtures: [String: [UInt8]] = {
        guard let url = Bundle.module.url(forResource: "messages", withExtension: "txt", subdirectory: "Fixtures/dbus"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [:] }
        var result: [String: [UInt8]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            let hex = Array(parts[1].utf8)
            result[String(parts[0])] = stride(from: 0, to: hex.count, by: 2).map {
                UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
            }
        }
        return result
    }()

    func fixture(_ name: String) throws -> DBusMessage {
        let bytes = try #require(Self.fixtures[name], "fixture \(name) missing")
        #expect(try DBusMessage.length(of: bytes[...]) == bytes.count)
        return try DBusMessage.decode(bytes)
    }

    @Test("Every recorded message decodes, and reads back the same after being written again")
    func recorded() throws {
        #expect(Self.fixtures.count == 10)
        for (name, bytes) in Self.fixtures {
            let message = try DBusMessage.decode(bytes)
            let again = try DBusMessage.decode(message.encoded())
            #expect(again == message, "\(name)")
            #expect(again.body == message.body, "\(name): the body's bytes")
        }
    }

    @Test("An Avahi resolver's Found signal: every argument, the TXT record's byte arrays among them")
    func found() throws {
        let m = try fixture("avahi-resolver-found")
        #expect(m.kind == .signal && m.member == "Found")
        #expect(m.interface == "org.freedesktop.Avahi.ServiceResolver" && m.path == "/Client4/ServiceResolver2")
        #expect(m.sender == ":1.0" && m.destination == ":1.13")
        #expect(m.signature == "iissssisqaayu")
        var r = m.bodyReader
        #expect(try r.int32() == 1)  // the loopback interface
        #expect(try r.int32() == 0)  // IPv4
        #expect(try r.string() == "vm")
        #expect(try r.string() == "_mouse3d._udp")
        #expect(try r.string() == "local")
        #expect(try r.string() == "vm.local")
        #expect(try r.int32() == 0)
        #expect(try r.string() == "127.0.0.1")
        #expect(try r.uint16() > 0)
        let txt = try r.byteArrays().map { String(decoding: $0, as: UTF8.self) }
        #expect(txt.contains("name=vm") && txt.contains("wire=sealed"), "\(txt)")
        _ = try r.uint32()
        #expect(r.atEnd)
    }

    @Test("Replies, errors and the bus's own signals")
    func replies() throws {
        let owner = try fixture("bus-get-name-owner-reply")
        #expect(owner.kind == .methodReturn && owner.replySerial != nil && owner.sender == "org.freedesktop.DBus")
        var r = owner.bodyReader
        #expect(try r.string() == ":1.0")
        let error = try fixture("bus-error-name-has-no-owner")
        #expect(error.kind == .error && error.errorName == "org.freedesktop.DBus.Error.NameHasNoOwner")
        #expect(error.errorText == "Could not get owner of name 'org.freedesktop.Nothing': no such name")
        let path = try fixture("avahi-object-path-reply")
        var p = path.bodyReader
        #expect(path.signature == "o")
        #expect(try p.objectPath() == "/Client3/EntryGroup1")
        let changed = try fixture("bus-name-owner-changed")
        #expect(changed.member == "NameOwnerChanged" && changed.signature == "sss")
        let state = try fixture("avahi-entry-group-state-changed")
        var s = state.bodyReader
        #expect(state.signature == "is")
        #expect(try s.int32() == 2)
        #expect(try s.string() == "org.freedesktop.Avahi.Success")
        let item = try fixture("avahi-item-new")
        #expect(item.member == "ItemNew" && item.signature == "iisssu")
    }

    @Test("The arguments of AddService are written byte for byte as GDBus wrote them")
    func writtenAsGDBus() throws {
        let call = try fixture("gdbus-addservice-call")
        #expect(call.kind == .methodCall && call.member == "AddService" && call.signature == "iiussssqaay")
        var w = DBusWriter()
        w.int32(-1)
        w.int32(-1)
        w.uint32(0)
        w.string("cap test")
        w.string("_mouse3d._udp")
        w.string("")
        w.string("")
        w.uint16(4242)
        w.array(elementAlignment: 4) { w in
            w.byteArray(Array("k=v".utf8))
            w.byteArray([0x61])
        }
        #expect(w.bytes == call.body)
        // And a call written here is the same message as dbus-send's (libdbus) once decoded.
        let sent = try fixture("dbus-send-alternative-name-call")
        var args = DBusWriter()
        args.string("cap #7")
        var mine = DBusMessage.call(
            "GetAlternativeServiceName", on: "/", interface: "org.freedesktop.Avahi.Server",
            destination: "org.freedesktop.Avahi", signature: "s", body: args.bytes)
        mine.serial = sent.serial
        mine.sender = sent.sender
        mine.flags = sent.flags
        #expect(try DBusMessage.decode(mine.encoded()) == sent)
    }

    @Test(
        "Avahi's next name after a collision is the one its daemon gives (\"cap #7\" → \"cap #8\"), and within a DNS label"
    )
    func alternativeNames() throws {
        var reply = try fixture("avahi-string-reply").bodyReader
        #expect(ServiceInstanceName.alternative(to: "cap #7") == (try reply.string()))
        #expect(ServiceInstanceName.alternative(to: "vm") == "vm #2")
        #expect(ServiceInstanceName.alternative(to: "vm #9") == "vm #10")
        #expect(ServiceInstanceName.alternative(to: "a#2") == "a#2 #2")
        #expect(ServiceInstanceName.alternative(to: "a #x") == "a #x #2")
        let long = String(repeating: "é", count: 40)  // 80 bytes
        let next = ServiceInstanceName.alternative(to: long)
        #expect(next.utf8.count <= 63 && next.hasSuffix(" #2") && next.hasPrefix("éé"))
    }

    @Test(
        "A big-endian message, assembled from the specification, reads as its little-endian twin and is written back as it was"
    )
    func bigEndian() throws {
        let bytes: [UInt8] =
            [0x42, 4, 0, 1, 0, 0, 0, 11, 0, 0, 0, 7, 0, 0, 0, 56]  // 'B', signal, body 11, serial 7, fields 56
            + [1, 1, 0x6f, 0, 0, 0, 0, 2, 0x2f, 0x61, 0, 0, 0, 0, 0, 0]  // PATH o "/a", padding
            + [2, 1, 0x73, 0, 0, 0, 0, 3, 0x62, 0x2e, 0x63, 0, 0, 0, 0, 0]  // INTERFACE s "b.c", padding
            + [3, 1, 0x73, 0, 0, 0, 0, 1, 0x44, 0, 0, 0, 0, 0, 0, 0]  // MEMBER s "D", padding
            + [8, 1, 0x67, 0, 2, 0x69, 0x73, 0]  // SIGNATURE g "is"
            + [0, 0, 0, 2, 0, 0, 0, 2, 0x6f, 0x6b, 0]  // body: 2, "ok"
        let m = try DBusMessage.decode(bytes)
        #expect(m.bigEndian && m.serial == 7 && m.path == "/a" && m.interface == "b.c" && m.member == "D")
        var r = m.bodyReader
        #expect(try r.int32() == 2)
        #expect(try r.string() == "ok")
        #expect(r.atEnd)
        #expect(try DBusMessage.decode(m.encoded()) == m, "written again in its own order")
        #expect(m.encoded() == bytes)
        // The same message written little-endian here differs only in its byte order.
        var w = DBusWriter()
        w.int32(2)
        w.string("ok")
        var little = DBusMessage(kind: .signal)
        (little.path, little.interface, little.member, little.signature, little.serial) = ("/a", "b.c", "D", "is", 7)
        little.body = w.bytes
        var decoded = try DBusMessage.decode(little.encoded())
        #expect(!decoded.bigEndian)
        decoded.bigEndian = true
        decoded.body = m.body
        #expect(decoded == m)
    }

    @Test("Cut short anywhere, a message is waited for or refused; damaged anywhere, it never traps")
    func damaged() throws {
        var rng = SplitMix64(seed: 31)
        var decodedAfterDamage = 0
        for (name, bytes) in Self.fixtures {
            for cut in 0..<bytes.count {
                let prefix = Array(bytes[..<cut])
                if let length = try? DBusMessage.length(of: prefix[...]) { #expect(length > cut, "\(name) at \(cut)") }
                #expect(throws: DBusFormatError.self) { try DBusMessage.decode(prefix) }
            }
            for _ in 0..<2000 {
                var copy = bytes
                let at = Int(rng.next() % UInt64(copy.count))
                copy[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                if let message = try? DBusMessage.decode(copy) {
                    decodedAfterDamage += 1
                    _ = message.encoded()
                }
            }
        }
        // Most damage lands in strings' text, which stays a message; the rest must be refused.
        #expect(decodedAfterDamage > 0 && decodedAfterDamage < Self.fixtures.count * 2000)
    }

    @Test("What the specification forbids is refused: booleans past 1, text that is not UTF-8, deep nesting, a NUL")
    func refused() throws {
        var w = DBusWriter()
        w.uint32(2)
        var r = DBusReader(w.bytes)
        #expect(throws: DBusFormatError.invalid("a boolean other than 0 or 1")) { try r.bool() }
        var bad = DBusReader([2, 0, 0, 0, 0xff, 0xfe, 0])
        #expect(throws: DBusFormatError.invalid("a string that is not UTF-8")) { try bad.string() }
        var noNul = DBusReader([1, 0, 0, 0, 0x61, 0x62])
        #expect(throws: DBusFormatError.invalid("a string without its NUL")) { try noNul.string() }
        var deep = DBusReader([0, 0, 0, 0])
        #expect(throws: DBusFormatError.invalid("containers nested too deep")) {
            try deep.skip(signature: String(repeating: "a", count: 40) + "y")
        }
        var path = DBusWriter()
        path.string("/a//b")
        var p = DBusReader(path.bytes)
        #expect(throws: DBusFormatError.invalid("a malformed object path")) { try p.objectPath() }
        func start(body: Int) -> [UInt8] {
            var w = DBusWriter()
            w.byte(UInt8(ascii: "l"))
            w.byte(1)
            w.byte(0)
            w.byte(1)
            w.uint32(UInt32(body))
            w.uint32(1)
            w.uint32(0)
            return w.bytes
        }
        // Longer than mouse3d reads: its length is known, so a reader can skip it; decoding refuses it.
        let long = start(body: DBusMessage.maximumLength + 1)
        #expect(try DBusMessage.length(of: long[...]) == 16 + DBusMessage.maximumLength + 1)
        #expect(throws: DBusFormatError.self) {
            try DBusMessage.decode(long + [UInt8](repeating: 0, count: DBusMessage.maximumLength + 1))
        }
        // Longer than the specification allows: the stream cannot be trusted.
        let tooLong = start(body: DBusMessage.specificationLimit + 1)
        #expect(throws: DBusFormatError.self) { try DBusMessage.length(of: tooLong[...]) }
    }

    @Test("Bus addresses: the first Unix socket, escapes decoded, other transports and malformed values skipped")
    func addresses() {
        #expect(DBusAddress.parse("unix:path=/run/dbus/system_bus_socket") == .path("/run/dbus/system_bus_socket"))
        #expect(DBusAddress.parse("unix:abstract=/tmp/dbus-XYZ,guid=0123") == .abstract("/tmp/dbus-XYZ"))
        #expect(DBusAddress.parse("tcp:host=localhost,port=1;unix:path=/a%20b") == .path("/a b"))
        #expect(DBusAddress.parse("unix:guid=1,path=/x") == .path("/x"))
        #expect(DBusAddress.parse("unix:path=/a%zz") == nil)
        #expect(DBusAddress.parse("unix:path=/a%00") == nil)
        #expect(DBusAddress.parse("tcp:host=x") == nil)
        #expect(DBusAddress.parse("") == nil)
    }
}
