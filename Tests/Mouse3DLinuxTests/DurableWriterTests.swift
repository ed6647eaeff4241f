import Glibc
import Mouse3DLinux
import Testing

@Suite("Durable writes off the loop, and the pairing folder's watcher")
struct DurableWriterTests {
    let directory: String = {
        var template = Array("/tmp/mouse3d-durable-test-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }()

    @Test(
        "Writes finish in the order submitted, each reported once with its tag; the file holds the last; the caller's thread never wrote"
    )
    func ordered() throws {
        let writer = try DurableFileWriter<Int>()
        defer { writer.stop() }
        let path = directory + "/a.state"
        for i in 0..<50 { writer.submit(path: path, bytes: Array("value \(i)\n".utf8), tag: i) }
        var tags: [Int] = []
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while tags.count < 50 && MonotonicClock.nanoseconds() < deadline {
            _ = try EventLoop.waitUntilReadable([writer.completions.descriptor], timeoutNanoseconds: 100_000_000)
            for done in writer.takeCompletions() {
                #expect(done.error == nil)
                tags.append(done.tag)
            }
        }
        #expect(tags == Array(0..<50))
        #expect(writer.isIdle)
        #expect(String(decoding: try FileContents.read(path: path), as: UTF8.self) == "value 49\n")
        #expect(try DirectoryListing.names(in: directory) == ["a.state"], "no temporary file left behind")
    }

    @Test("A write that cannot be done comes back with its error, and the writer carries on")
    func failure() throws {
        let writer = try DurableFileWriter<String>()
        defer { writer.stop() }
        writer.submit(path: directory + "/missing-folder/x.state", bytes: [1], tag: "bad")
        writer.submit(path: directory + "/y.state", bytes: [2], tag: "good")
        writer.waitUntilIdle()
        let done = writer.takeCompletions()
        #expect(done.map(\.tag) == ["bad", "good"])
        #expect(done[0].error != nil && done[1].error == nil)
    }

    @Test("The watcher reports a pairing's key file, not a session state written beside it")
    func watcherFilter() throws {
        let watcher = try DirectoryWatcher(path: directory)
        let writer = try DurableFileWriter<Int>()
        defer { writer.stop() }
        writer.submit(path: directory + "/0011223344556677.state", bytes: Array("epoch 1\n".utf8), tag: 0)
        writer.waitUntilIdle()
        #expect(
            try watcher.drain(relevant: { $0.hasSuffix(".key") }) == false,
            "a state file (and its temporary) is not a pairing")
        writer.submit(path: directory + "/0011223344556677.state", bytes: Array("epoch 2\n".utf8), tag: 1)
        writer.submit(path: directory + "/0011223344556677.key", bytes: Array("key\n".utf8), tag: 2)
        writer.waitUntilIdle()
        #expect(try watcher.drain(relevant: { $0.hasSuffix(".key") }) == true)
        #expect(try watcher.drain(relevant: { $0.hasSuffix(".key") }) == false, "read once")
    }
}
