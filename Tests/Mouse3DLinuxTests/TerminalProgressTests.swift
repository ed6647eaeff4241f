import Mouse3DLinux
import Testing

@Suite("Progress lines on a terminal, silence in a pipe")
struct TerminalProgressTests {
    @Test("On a terminal: rewritten in place at most every 200 ms, and the line cleared at the end")
    func terminal() {
        var written: [String] = []
        let progress = TerminalProgress(enabled: true) { written.append($0) }
        progress.update("a", now: 1_000_000_000)
        progress.update("b", now: 1_100_000_000)  // too soon: skipped
        progress.update("c", now: 1_200_000_000)
        progress.finish()
        progress.finish()  // nothing shown since: nothing written
        #expect(written == ["\r\u{1B}[Ka", "\r\u{1B}[Kc", "\r\u{1B}[K"])
    }

    @Test("Piped or logged: nothing at all")
    func piped() {
        var written: [String] = []
        let progress = TerminalProgress(enabled: false) { written.append($0) }
        for i in 0..<10 { progress.update("step \(i)", now: UInt64(i) * 1_000_000_000) }
        progress.finish()
        #expect(written.isEmpty)
    }
}
