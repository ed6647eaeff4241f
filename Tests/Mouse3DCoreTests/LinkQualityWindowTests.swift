import Mouse3DCore
import Testing

@Suite("Link quality over the last 10 s")
struct LinkQualityWindowTests {
    @Test("Loss is a share of frames sent in the window; old seconds fall out")
    func loss() {
        var w = LinkQualityWindow()
        let s: UInt64 = 1_000_000_000
        for k in 0..<90 { w.accepted(now: 5 * s + UInt64(k) * 10_000_000, lostBefore: k % 9 == 8 ? 1 : 0, sent: nil) }
        var f = w.figures(now: 6 * s)
        #expect(f.received == 90 && f.lost == 10 && abs(f.lossPercent - 10) < 1e-9)
        w.reordered(now: 6 * s)
        f = w.figures(now: 7 * s)
        #expect(f.reordered == 1)
        #expect(f.lost == 9 && abs(f.lossPercent - 9) < 1e-9, "a skipped frame that came late was not lost: \(f)")
        #expect(w.figures(now: 14 * s).received == 90, "second 5 is still within the 10 s ending at second 14")
        #expect(w.figures(now: 15 * s).received == 0 && w.figures(now: 15 * s).reordered == 1)
        #expect(w.figures(now: 15 * s).lost == 0, "never below zero")
        #expect(w.figures(now: 16 * s).reordered == 0)
    }

    @Test(
        "Jitter follows RFC 3550: zero for a steady link whatever the clock offset, about the mean deviation otherwise")
    func jitter() {
        var steady = LinkQualityWindow()
        for k in 0..<1000 {
            steady.accepted(
                now: 123_456_789 + UInt64(k) * 1_000_000, lostBefore: 0, sent: 9_000_000_000_000 + UInt64(k) * 1_000_000
            )
        }
        #expect(steady.jitterNanoseconds == 0)
        // Transit alternating 1 ms and 3 ms: |D| = 2 ms each time; J converges to 2 ms.
        var bumpy = LinkQualityWindow()
        for k in 0..<1000 {
            let sent = UInt64(k) * 10_000_000
            bumpy.accepted(now: sent + (k % 2 == 0 ? 1_000_000 : 3_000_000), lostBefore: 0, sent: sent)
        }
        #expect(abs(bumpy.figures(now: 10_000_000_000).jitterMilliseconds - 2) < 0.01)
    }
}
