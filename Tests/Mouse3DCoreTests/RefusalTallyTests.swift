import Mouse3DCore
import Testing

@Suite("Refusal tallies of the web servers and DSU")
struct RefusalTallyTests {
    enum Reason: String, CaseIterable, Sendable { case first = "first-reason", second = "second", third = "third" }

    @Test("Counts by reason, listed in declared order with their raw values; nothing refused lists nothing")
    func listing() {
        var tally = RefusalTally<Reason>()
        #expect(tally.isEmpty && tally.listing == nil && tally[.first] == nil)
        tally.add(.third)
        tally.add(.first)
        tally.add(.third)
        #expect(tally[.third] == 2 && tally[.first] == 1 && tally[.second] == nil)
        #expect(tally.listing == "first-reason 1, third 2")
        #expect(tally.counts == [.first: 1, .third: 2])
    }
}
