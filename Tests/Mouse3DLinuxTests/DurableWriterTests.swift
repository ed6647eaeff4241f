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
        writer.stop()
        #expect(try DirectoryListing.names(in: directory) == ["a.state"], "no temporary file left behind")
    }

    @Test(
        "A path written again reuses its kept temporary: swapped in, so no inode is made; the temporary holds the previous contents, closed to others, and goes when the writer stops"
    )
    func keptTemporary() throws {
        let writer = try DurableFileWriter<Int>()
        let path = directory + "/k.state"
        let temporary = SecretFile.temporaryPath(for: path)
        func inode(_ p: String) -> UInt? {
            var status = stat()
            return stat(p, &status) == 0 ? UInt(status.st_ino) : nil
        }
        writer.submit(path: path, bytes: Array("first\n".utf8), tag: 0)
        writer.waitUntilIdle()
        // The first write of a path that did not exist renames its temporary (nothing to swap).
        #expect(inode(temporary) == nil)
        for (i, text) in ["second\n", "third, a longer line\n", "4\n"].enumerated() {
            let before = (file: inode(path), temporary: inode(temporary))
            writer.submit(path: path, bytes: Array(text.utf8), tag: i + 1)
            writer.waitUntilIdle()
            #expect(String(decoding: try FileContents.read(path: path), as: UTF8.self) == text)
            // Swapped: the file is the old temporary's inode (when there was one), the temporary the
            // old file's, holding what the file held.
            #expect(inode(temporary) == before.file, "write \(i + 2)")
            if let old = before.temporary { #expect(inode(path) == old, "write \(i + 2): a new inode was made") }
            var status = stat()
            #expect(stat(temporary, &status) == 0 && status.st_mode & 0o777 == 0o600)
        }
        #expect(String(decoding: try FileContents.read(path: temporary), as: UTF8.self) == "third, a longer line\n")
        #expect(writer.takeCompletions().allSatisfy { $0.error == nil })
        writer.stop()
        #expect(try DirectoryListing.names(in: directory) == ["k.state"], "the kept temporary is removed at stop")
        // Stopped: a second stop does nothing; a write is done on the spot, and keeps nothing.
        writer.stop()
        writer.submit(path: path, bytes: Array("after\n".utf8), tag: 9)
        #expect(writer.isIdle)
        #expect(String(decoding: try FileContents.read(path: path), as: UTF8.self) == "after\n")
        #expect(try DirectoryListing.names(in: directory) == ["k.state"])
    }

    @Test(
        "A kept temporary that is not a plain file of the caller's (a FIFO put there) is made anew, without waiting on it; a folder in the file's place is not swapped aside"
    )
    func keptTemporaryReplaced() throws {
        let path = directory + "/f.state"
        try SecretFile.write(path: path, bytes: Array("old\n".utf8))
        let temporary = SecretFile.temporaryPath(for: path)
        #expect(mkfifo(temporary, 0o600) == 0)
        let errors = SecretFile.write([(path, Array("new\n".utf8))], keepingTemporaries: true)
        #expect(errors.allSatisfy { $0 == nil }, "\(errors)")
        #expect(String(decoding: try FileContents.read(path: path), as: UTF8.self) == "new\n")
        var status = stat()
        #expect(stat(temporary, &status) == 0 && status.st_mode & S_IFMT == S_IFREG, "the FIFO was replaced")
        #expect(String(decoding: try FileContents.read(path: temporary), as: UTF8.self) == "old\n")
        SecretFile.removeTemporary(for: path)
        #expect(try DirectoryListing.names(in: directory) == ["f.state"])
        // A folder where the file goes: the write fails as a rename over it does (a swap would
        // succeed and move the folder aside), and the folder stays.
        let folder = directory + "/d.state"
        #expect(mkdir(folder, 0o700) == 0)
        #expect(SecretFile.write([(folder, [1])], keepingTemporaries: true)[0] != nil, "stored over a folder")
        #expect(stat(folder, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        #expect(try DirectoryListing.names(in: directory).sorted() == ["d.state", "f.state"])
    }

    @Test("The writer's thread is named and runs at the least CPU priority (nice 19), below the loop it serves")
    func lowPriority() throws {
        let callerBefore = Self.ownNiceness()
        let writer = try DurableFileWriter<Int>()
        defer { writer.stop() }
        writer.submit(path: directory + "/n.state", bytes: [1], tag: 0)
        writer.waitUntilIdle()
        // Read from /proc as `top -H` would: every thread of this process so named (other tests'
        // writers too), and its nice value, the 19th field of its stat line.
        var niceness: [Int] = []
        for task in try DirectoryListing.names(in: "/proc/self/task") {
            let base = "/proc/self/task/\(task)"
            guard let comm = try? FileContents.read(path: base + "/comm"),
                String(decoding: comm, as: UTF8.self) == "mouse3d-store\n",
                let stat = try? FileContents.read(path: base + "/stat")
            else { continue }
            let text = String(decoding: stat, as: UTF8.self)
            let afterName = text[text.index(after: text.lastIndex(of: ")")!)...].split(separator: " ")
            niceness.append(Int(afterName[16])!)  // fields 3... after the name; nice is field 19
        }
        #expect(!niceness.isEmpty, "a thread named mouse3d-store is running")
        #expect(niceness.allSatisfy { $0 == 19 }, "nice values \(niceness)")
        #expect(Self.ownNiceness() == callerBefore, "the caller's thread is left as it was")
    }

    static func ownNiceness() -> Int32 {
        Glibc.errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)  // 0: the calling thread
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

    @Test(
        "A group of files written together: each holds its bytes with mode 0600, one that cannot be written fails alone, no temporary file is left"
    )
    func group() throws {
        let other = directory + "/sub"
        #expect(mkdir(other, 0o700) == 0)
        var files: [(path: String, bytes: [UInt8])] = (0..<40).map {
            (directory + "/\($0).state", Array("epoch \($0)\n".utf8))
        }
        files.insert((directory + "/missing-folder/x.state", [1]), at: 17)
        files.append((other + "/y.state", [2]))
        let errors = SecretFile.write(files)
        #expect(errors.count == files.count)
        for (i, file) in files.enumerated() {
            if i == 17 {
                #expect(errors[i] != nil, "a file in a missing folder was stored")
                continue
            }
            #expect(errors[i] == nil, "\(file.path): \(String(describing: errors[i]))")
            #expect(try FileContents.read(path: file.path) == file.bytes, "\(file.path)")
            var status = stat()
            #expect(stat(file.path, &status) == 0 && status.st_mode & 0o777 == 0o600, "\(file.path)")
        }
        let names = try DirectoryListing.names(in: directory)
        #expect(!names.contains { $0.contains(".tmp-") }, "temporary files left: \(names)")
        #expect(try DirectoryListing.names(in: other) == ["y.state"])
        // Written again over the old: replaced whole.
        #expect(SecretFile.write([(directory + "/3.state", Array("epoch 33\n".utf8))]).allSatisfy { $0 == nil })
        #expect(String(decoding: try FileContents.read(path: directory + "/3.state"), as: UTF8.self) == "epoch 33\n")
    }

    @Test("Temporary files of writers no longer running are removed; a running one's, and other files, are not")
    func staleTemporaries() throws {
        // A process that has ended: its number is free (ESRCH) once reaped.
        let child = try ChildProcess(executable: "/bin/true", arguments: [])
        _ = try child.wait()
        let gone = child.pid
        let stale = ["a.state.tmp-\(gone)", "b.key.tmp-\(gone)"]
        let kept = ["c.state.tmp-\(getpid())", "d.state.tmp-1", "e.state", "f.state.tmp-x"]
        let files = stale + kept
        for name in files { try SecretFile.write(path: directory + "/" + name, bytes: [1]) }
        #expect(SecretFile.removeStaleTemporaries(in: directory) == 2)
        #expect(try DirectoryListing.names(in: directory).sorted() == kept.sorted())
    }

    @Test(
        "Writes queued together are stored in a few group commits, each completion in the order submitted, a repeated path after the one before it"
    )
    func queuedTogether() throws {
        let writer = try DurableFileWriter<Int>()
        defer { writer.stop() }
        for i in 0..<200 {
            writer.submit(path: directory + "/\(i % 70).state", bytes: Array("value \(i)\n".utf8), tag: i)
        }
        writer.waitUntilIdle()
        let done = writer.takeCompletions()
        #expect(done.map(\.tag) == Array(0..<200))
        #expect(done.allSatisfy { $0.error == nil })
        // The first may go alone (the writer wakes at once); the rest wait for it, 64 or up to a
        // repeated path a group: about five. One a write would be 200.
        #expect(writer.groupsWritten <= 20, "\(writer.groupsWritten) group commits for 200 writes")
        for i in 130..<200 {
            #expect(
                String(decoding: try FileContents.read(path: directory + "/\(i % 70).state"), as: UTF8.self)
                    == "value \(i)\n")
        }
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
