import Mouse3DCore
import Testing

@Suite("Anti-replay window")
struct ReplayWindowTests {
    /// Feeds `counters` in order; returns which were accepted.
    func feed(_ w: inout ReplayWindow, _ counters: [UInt64]) -> [Bool] { counters.map { w.accept($0) } }

    @Test("In order: each counter once")
    func inOrder() {
        var w = ReplayWindow()
        let first = feed(&w, Array(0..<5000))
        let again = feed(&w, Array(4000..<5000))
        #expect(first.allSatisfy { $0 })
        #expect(again.allSatisfy { !$0 })
    }

    @Test("Reordered within the window: accepted once; beyond it: refused")
    func reordered() {
        var w = ReplayWindow(size: 128)
        #expect(w.size == 128)
        // 1000; 100 behind (in); the same again (out); 127 behind (the last one in); 128 behind (out);
        // a jump of 200 slides the window; 1000 is now 200 behind (out); 1199 and 1073 in, 1072 out.
        let got = feed(&w, [1000, 900, 900, 873, 872, 1200, 1000, 1199, 1073, 1072])
        #expect(got == [true, true, false, true, false, true, false, true, true, false])
    }

    @Test("Marks survive shifts across word boundaries", arguments: [1, 63, 64, 65, 127, 130])
    func shifts(step: Int) {
        var w = ReplayWindow(size: 256)
        let counters = Array(stride(from: UInt64(10), to: 2000, by: step))
        #expect(feed(&w, counters).allSatisfy { $0 })
        let newest = counters.last!
        let recent = counters.filter { newest - $0 < 256 }
        #expect(feed(&w, recent).allSatisfy { !$0 }, "a recent counter accepted twice (step \(step))")
        if step > 1 {
            // A counter never seen inside the window is still accepted, once.
            #expect(feed(&w, [newest - 1, newest - 1]) == [true, false])
        }
    }

    @Test("wouldAccept changes nothing")
    func peek() {
        var w = ReplayWindow()
        #expect(w.wouldAccept(5) && w.wouldAccept(5))
        #expect(feed(&w, [5]) == [true])
        #expect(!w.wouldAccept(5) && w.wouldAccept(6) && w.newest == 5)
    }
}
