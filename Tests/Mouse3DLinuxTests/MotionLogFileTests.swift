import Glibc
import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("Motion logs played as they are read")
struct MotionLogFileTests {
    /// A log of `count` samples at 1 kHz in a temporary file; returns its path.
    func writeLog(_ count: Int, name: String = "log", shift: Double = 0) throws -> String {
        var text = "t,gx,gy,gz,ax,ay,az\n"
        for i in 0..<count {
            text += "\(Double(i) * 0.001 + shift),\(Double(i % 97) * 0.01),0.125,-0.5,0,0,9.81\n"
        }
        let path = "/tmp/mouse3d-logfile-\(getpid())-\(name).csv"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        return path
    }

    func play(_ player: inout MotionLogPlayer, _ count: Int) throws -> [MotionSample] {
        var out: [MotionSample] = []
        while out.count < count, let s = try player.peek() {
            out.append(s)
            player.advance()
        }
        return out
    }

    @Test("A long log plays as it does from memory, looped, a chunk at a time")
    func sameAsMemory() throws {
        let path = try writeLog(20_000)
        defer { unlink(path) }
        let whole = try MotionLogParser.parse(FileContents.read(path: path), file: path).samples
        let file = try MotionLogFile(path: path)
        #expect(file.span == MotionLogSpan(of: whole))
        var memory = MotionLogPlayer(samples: whole, loops: true, speed: nil)
        var streamed = MotionLogPlayer(span: file.span, batches: file, loops: true, speed: nil)
        #expect(try play(&streamed, 50_000) == play(&memory, 50_000))
        // Bounded: one read of 16 kB holds about 450 of these lines (of 20,000).
        let again = try MotionLogFile(path: path)
        let batch = try again.next()
        #expect(batch.count > 0 && batch.count < 600, "\(batch.count) samples in one batch")
    }

    @Test("A bad line is refused when the log is opened, with its file and line; a log changed between passes stops")
    func refused() throws {
        let path = try writeLog(10, name: "bad")
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_APPEND)
        _ = "0.5,x,0,0,0,0,9.8\n".utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        #expect {
            _ = try MotionLogFile(path: path)
        } throws: { ($0 as? MotionLogError)?.line == 12 }

        let good = try writeLog(10, name: "changed")
        defer { unlink(good) }
        let file = try MotionLogFile(path: good)
        var player = MotionLogPlayer(span: file.span, batches: file, loops: true, speed: nil)
        #expect(try play(&player, 10).count == 10)
        _ = try writeLog(10, name: "changed", shift: 5)  // rewritten later in time
        #expect(throws: MotionLogChanged.self) { try play(&player, 10) }
    }
}
