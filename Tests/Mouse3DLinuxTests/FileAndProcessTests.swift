import Glibc
import SystemPackage
import Testing

@testable import Mouse3DLinux

@Suite("Files, directories, processes")
struct FileAndProcessTests {
    let directory: String = {
        var template = Array("/tmp/mouse3d-linux-test-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }()

    @Test(
        "Root's folders as a user unit's sandbox shows them (PrivateUsers=yes: root unmapped, so owned by the overflow uid) count as root's; outside such a namespace they do not"
    )
    func unmappedRoot() throws {
        func write(_ name: String, _ text: String) throws -> String {
            let out = try BufferedOutput(creatingFileAt: "\(directory)/\(name)", capacity: 64)
            try out.writeLine(text)
            try out.flush()
            return "\(directory)/\(name)"
        }
        // /proc/self/uid_map as the kernel prints it: inside, outside, count.
        let sandbox = try write("uid_map-unit", "      1000       1000          1")
        let host = try write("uid_map-host", "         0          0 4294967295")
        let overflow = try write("overflowuid", "65534")
        #expect(SecretFile.unmappedRootOwner(uidMap: sandbox, overflowUID: overflow) == 65534)
        #expect(SecretFile.unmappedRootOwner(uidMap: host, overflowUID: overflow) == nil)
        let other = try write("overflowuid-other", "65000")
        #expect(SecretFile.unmappedRootOwner(uidMap: sandbox, overflowUID: other) == 65000)
        // This process: the test runs outside any such namespace, where nobody's folders stay foreign.
        #expect(SecretFile.unmappedRootOwner() == nil)
    }

    @Test("A thread's timer slack is set and read back, and restored (a coalescing receiver's timed reads)")
    func timerSlack() {
        let before = TimerSlack.current
        #expect(before > 0, "a thread always has a slack (50 µs by default)")
        #expect(TimerSlack.set(nanoseconds: 1_000))
        #expect(TimerSlack.current == 1_000)
        #expect(TimerSlack.set(nanoseconds: 0), "0 is taken as 1 ns, not as the default")
        #expect(TimerSlack.current == 1)
        #expect(TimerSlack.set(nanoseconds: before))
        #expect(TimerSlack.current == before)
    }

    @Test("A missing file's error names the file and the errno text")
    func missingFile() {
        #expect { try FileContents.read(path: "\(directory)/missing.csv") } throws: { error in
            let text = "\(error)"
            return text.contains("missing.csv") && text.contains("No such file or directory") && text.contains("open")
        }
    }

    @Test("Written output reads back whole and in chunks of any size", arguments: [1, 7, 4096])
    func writeAndRead(chunkSize: Int) throws {
        let path = "\(directory)/out-\(chunkSize).txt"
        do {
            let out = try BufferedOutput(creatingFileAt: path, capacity: 16)
            for i in 0..<100 { try out.writeLine("line \(i)") }
            try out.flush()
        }
        let whole = try FileContents.read(path: path)
        #expect(String(decoding: whole, as: UTF8.self).split(separator: "\n").count == 100)
        var chunks: [UInt8] = []
        try FileContents.forEachChunk(path: path, chunkSize: chunkSize) { chunk in
            #expect(chunk.count <= chunkSize)
            chunks += chunk
        }
        #expect(chunks == whole)
        #expect(try DirectoryListing.names(in: directory).contains("out-\(chunkSize).txt"))
        try FileSystem.remove(path)
        try FileSystem.remove(path)  // already gone: not an error
        #expect(!FileSystem.exists(path))
    }

    @Test(
        "Lines written in place and lines made in arrays, of every length from none to past the buffer and its slack, read back byte for byte in order"
    )
    func linesInPlace() throws {
        let path = "\(directory)/in-place.txt"
        var expected: [UInt8] = []
        do {
            let out = try BufferedOutput(creatingFileAt: path, capacity: 16)
            for (i, length) in [0, 1, 15, 16, 17, 3, 4000, 4095, 4096, 4097, 9000, 2, 20_000, 5].enumerated() {
                let line = (0..<length).map { UInt8(ascii: "a") + UInt8(($0 + i) % 26) }
                if i % 3 == 2 {
                    try out.writeLine { $0.append(contentsOf: line) }
                } else {
                    // Asks for more room than it takes, as a formatter does.
                    try out.writeLine(atMost: length + 50) { start in
                        line.withUnsafeBufferPointer {
                            if let b = $0.baseAddress { start.update(from: b, count: length) }
                        }
                        return length
                    }
                }
                expected += line + [UInt8(ascii: "\n")]
            }
            try out.flush()
        }
        let written = try FileContents.read(path: path)
        #expect(written.count == expected.count)
        #expect(written == expected, "the lines came back changed or out of order")
        try FileSystem.remove(path)
    }

    @Test("A write that fails (a descriptor opened only for reading) throws, naming write(2) and errno's text")
    func failedWrite() throws {
        let readOnly = try FileDescriptor.open("/dev/null", .readOnly)
        defer { try? readOnly.close() }
        let out = BufferedOutput(descriptor: readOnly)
        try out.writeLine("lost")
        #expect {
            try out.flush()
        } throws: { error in
            let text = "\(error)"
            return text.contains("write") && text.contains("Bad file descriptor")
        }
    }

    @Test("Listing a missing directory names it")
    func missingDirectory() {
        #expect { try DirectoryListing.names(in: "\(directory)/nope") } throws: { "\($0)".contains("nope") }
    }

    @Test("A child's exit status and standard error are reported")
    func child() throws {
        let ok = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo hello >&2; exit 3"])
        #expect(try ok.readErrorLine() == "hello")
        #expect(try ok.wait() == 3)
        let killed = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        try killed.send(signal: SIGTERM)
        #expect(try killed.wait() == 128 + SIGTERM)
    }

    @Test("Another process's CPU time is read from its CPU clock: finer than /proc's ticks, and agreeing with them")
    func childCPUTime() throws {
        // A child that spins for about 0.3 s of CPU, then waits to be told to end.
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo spun >&2; exec sleep 30"])
        defer {
            _ = try? child.terminate()
            _ = try? child.wait()
        }
        #expect(try child.readErrorLine() == "spun")
        let clock = try ProcessStatistics.cpuSeconds(pid: child.pid)
        let ticks = try ProcessStatistics.tickedCPUSeconds(pid: child.pid)
        #expect(clock > 0.02)
        // /proc counts whole 10 ms ticks; the clock counts nanoseconds (not a whole number of ticks).
        #expect((clock * 100).rounded() != clock * 100)
        #expect(abs(clock - ticks) < 0.05 + 0.1 * ticks, "clock \(clock) s, ticks \(ticks) s")
    }

    @Test(
        "Sysfs bitmasks: INPUT_PROP_ACCELEROMETER and ABS axes",
        arguments: [
            ("40", 6, true), ("3f", 6, false), ("3f", 5, true), ("30000003f", 32, true),
            ("3 0", 64, true), ("3 0", 0, false), ("0", 200, false), ("", 1, false)
        ])
    func bitmask(text: String, bit: Int, set: Bool) {
        #expect(MotionSourceEnumerator.hasBit(bit, inHexBitmask: text) == set)
    }
}

@Suite("Absolute axes")
struct AbsoluteAxisTests {
    @Test(
        "A raw value becomes -1...1 over its range: the ends, the middle, a hat's three values, clamped, an empty range 0"
    )
    func normalized() {
        let stick = AbsoluteAxisInfo(value: 0, minimum: 0, maximum: 255, fuzz: 0, flat: 0, resolution: 0)
        #expect(stick.normalized(0) == -1 && stick.normalized(255) == 1)
        #expect(abs(stick.normalized(128) - 1 / 255) < 1e-6)
        #expect(stick.normalized(-40) == -1 && stick.normalized(300) == 1, "clamped")
        let hat = AbsoluteAxisInfo(value: 0, minimum: -1, maximum: 1, fuzz: 0, flat: 0, resolution: 0)
        #expect([-1, 0, 1].map(hat.normalized) == [-1, 0, 1])
        let signed = AbsoluteAxisInfo(value: 0, minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: 0)
        #expect(abs(signed.normalized(0)) < 1e-4 && signed.normalized(-32768) == -1)
        #expect(AbsoluteAxisInfo(value: 3, minimum: 3, maximum: 3, fuzz: 0, flat: 0, resolution: 0).normalized(3) == 0)
    }
}

@Suite("Messages for device errors")
struct PermissionAdviceTests {
    @Test("Permission denied names the node and the udev rule that fixes it")
    func permission() {
        let text = PermissionAdvice.message(
            for: SystemCallError(call: "open", subject: "/dev/input/event7", errno: .permissionDenied),
            node: "/dev/input/event7")
        #expect(
            text.contains("/dev/input/event7") && text.contains("udev/70-mouse3d.rules") && text.contains("udevadm"))
    }

    @Test(
        "The rule is named by a full path the user can copy from anywhere: here the checkout's, found from the running binary in .build"
    )
    func ruleByFullPath() throws {
        // This test binary runs from .build inside the checkout, whose udev/ holds the rule.
        let checkout = String(#filePath.split(separator: "/Tests/", maxSplits: 1)[0])
        #expect(PermissionAdvice.ruleFile == checkout + "/udev/70-mouse3d.rules")
        #expect(FileSystem.exists(PermissionAdvice.ruleFile))
    }

    @Test("A vanished device says so and points at mouse3d list")
    func gone() {
        let text = PermissionAdvice.message(
            for: SystemCallError(call: "open", subject: "x", errno: .noSuchFileOrDirectory), node: "/dev/input/event9")
        #expect(text.contains("/dev/input/event9") && text.contains("mouse3d list"))
    }
}
