import Mouse3DCore
import Testing

@Suite("Who may drive the pointer from a phone, and what is said of refusals")
struct PhoneCredentialsTests {
    let token = String(repeating: "a1", count: 16)

    @Test("The URL's token admits one phone once; the phone's secret admits it from then on; anything else is unknown")
    func urlTokenIsSpent() {
        var c = PhoneCredentials(urlToken: token, remembers: false)
        #expect(c.check(token) == .newPhone)
        #expect(c.check("00" + token.dropFirst(2)) == .unknown)
        #expect(c.check("") == .unknown)
        let secret = String(repeating: "5e", count: 16)
        c.admitNewPhone(secret: secret)
        #expect(c.check(secret) == .knownPhone, "valid at once")
        #expect(!c.urlTokenSpent && c.check(token) == .newPhone, "not spent until the page kept its secret")
        #expect(c.confirm(secret).isEmpty, "nothing to store without --phone-remember")
        #expect(c.urlTokenSpent)
        #expect(c.check(token) == .spentToken)
        #expect(c.check(secret) == .knownPhone)
        #expect(c.confirm(secret).isEmpty && c.urlTokenSpent, "confirming twice changes nothing")
    }

    @Test("Remembered phones' secrets are known from the start, a new one is stored with them, at most eight")
    func remembered() {
        let old = (0..<8).map { String(repeating: format2($0), count: 16) }
        var c = PhoneCredentials(urlToken: token, remembers: true, remembered: old)
        #expect(old.allSatisfy { c.check($0) == .knownPhone })
        #expect(c.check(token) == .newPhone, "a remembered phone does not spend the URL's token")
        c.admitNewPhone(secret: String(repeating: "ee", count: 16))  // a page that never kept it
        c.admitNewPhone(secret: String(repeating: "ff", count: 16))
        let stored = c.confirm(String(repeating: "ff", count: 16))
        #expect(stored.count == PhoneCredentials.maximumRemembered)
        #expect(stored.last == String(repeating: "ff", count: 16) && !stored.contains(old[0]), "the oldest goes")
        #expect(c.check(old[0]) == .unknown)
        #expect(c.check(String(repeating: "ee", count: 16)) == .unknown, "the secret never kept is gone")
        let forgetting = PhoneCredentials(urlToken: token, remembers: false, remembered: old)
        #expect(forgetting.check(old[1]) == .unknown, "without --phone-remember the stored phones are not let in")
    }

    @Test(
        "Repeated lines: the first said, repeats within the window counted, the count said with the next one after it")
    func repeatedLines() {
        var lines = RepeatedLines(windowNanoseconds: 1_000_000_000)
        #expect(lines.say("recentred", now: 0) == "recentred")
        for k in 1...999 { #expect(lines.say("recentred", now: UInt64(k) * 1_000_000) == nil) }
        #expect(lines.say("other", now: 500_000_000) == "other", "each kind of line on its own")
        #expect(lines.say("recentred", now: 1_000_000_000) == "recentred (and 999 more like it before)")
        #expect(lines.say("recentred", now: 2_500_000_000) == "recentred")
        // Many kinds: what is held stays bounded, and a new kind is still said.
        for k in 0..<10_000 { _ = lines.say("line \(k)", now: 3_000_000_000 + UInt64(k)) }
        #expect(lines.say("line 10000", now: 3_100_000_000) == "line 10000")
    }

    @Test("A token bucket charged a measured cost goes below zero and says when the next token comes")
    func chargedBucket() {
        var b = TokenBucket(ratePerSecond: 100_000, burst: 4000, now: 0)  // µs of loop time a second
        #expect(b.wouldAllow(now: 0))
        b.charge(118_000, now: 0)  // one 118 ms step
        #expect(!b.wouldAllow(now: 1_000_000_000), "paid back over 1.14 s")
        let next = b.nextTokenTime
        #expect(next >= 1_140_000_000 && next <= 1_140_100_000, "\(next)")
        #expect(b.wouldAllow(now: next))
        // A token held: a fixed time in the past (a deadline of "now", read afresh, would never come).
        #expect(TokenBucket(ratePerSecond: 1, burst: 1, now: 5).nextTokenTime == 5, "a token already held")
    }

    func format2(_ k: Int) -> String { k < 10 ? "0\(k)" : "\(k)" }
}
