import Mouse3DAssembly
import Mouse3DLinux
import Testing

@Suite("A session runs a command's parts")
struct SessionTests {
    /// What the parts did, in order.
    final class Journal { var entries: [String] = [] }

    func part(_ name: String, _ journal: Journal) -> Part {
        Part(
            attach: { _ in journal.entries.append("attach \(name)") },
            closing: {
                journal.entries.append("closing \(name)")
                return ["\(name) said"]
            }, finish: { journal.entries.append("finish \(name)") })
    }

    @Test("Parts are attached, summed up and finished in the order added; the loop runs between")
    func order() throws {
        let session = try Session(signals: [], quiet: true)
        let journal = Journal()
        session.add(part("a", journal))
        session.add(nil as (any Component)?)
        session.add(part("b", journal))
        _ = session.loop.timer(deadline: { 0 }) { _ in
            journal.entries.append("loop ran")
            session.loop.stop()
        }
        let ending = try session.run(stopLine: .onSignal)
        #expect(ending == .requested)
        #expect(
            journal.entries == [
                "attach a", "attach b", "loop ran", "closing a", "closing b", "finish a", "finish b"
            ])
    }

    @Test("When the loop throws, every part is still finished (devices at rest) and nothing is summed up")
    func finishedOnThrow() throws {
        struct Broken: Error {}
        let session = try Session(signals: [], quiet: true)
        let journal = Journal()
        session.add(part("a", journal))
        _ = session.loop.timer(deadline: { 0 }) { _ in throw Broken() }
        #expect(throws: Broken.self) { try session.run(stopLine: .always) }
        #expect(journal.entries == ["attach a", "finish a"])
    }
}
