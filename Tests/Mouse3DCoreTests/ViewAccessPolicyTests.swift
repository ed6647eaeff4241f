import Mouse3DCore
import Testing

@Suite("Who may use the live view")
struct ViewAccessPolicyTests {
    @Test("Loopback: its own Host names only; the stream only from its own page or no browser at all")
    func loopback() {
        let p = ViewAccessPolicy(address: "127.0.0.1", port: 8099)
        #expect(p.check(host: "127.0.0.1:8099", origin: nil, stream: false) == nil)
        #expect(p.check(host: "localhost:8099", origin: nil, stream: false) == nil)
        #expect(p.check(host: "LOCALHOST:8099", origin: "http://localhost:8099", stream: true) == nil)
        #expect(p.check(host: "[::1]:8099", origin: nil, stream: true) == nil)
        #expect(p.check(host: nil, origin: nil, stream: false) == .foreignHost)
        #expect(p.check(host: "attacker.example:8099", origin: nil, stream: false) == .foreignHost, "DNS rebinding")
        #expect(p.check(host: "127.0.0.1:8100", origin: nil, stream: false) == .foreignHost)
        #expect(p.check(host: "127.0.0.1:8099", origin: "http://attacker.example", stream: true) == .foreignOrigin)
        #expect(p.check(host: "127.0.0.1:8099", origin: "http://127.0.0.1:8099.attacker.example", stream: true) == .foreignOrigin)
        #expect(p.check(host: "127.0.0.1:8099", origin: "https://127.0.0.1:8099", stream: true) == .foreignOrigin)
        #expect(p.check(host: "127.0.0.1:8099", origin: "http://attacker.example", stream: false) == nil, "the page itself may be linked to")
    }

    @Test("Another address: only that address, no localhost names")
    func lan() {
        let p = ViewAccessPolicy(address: "192.0.2.7", port: 80)
        #expect(p.check(host: "192.0.2.7:80", origin: "http://192.0.2.7:80", stream: true) == nil)
        #expect(p.check(host: "localhost:80", origin: nil, stream: false) == .foreignHost)
        let v6 = ViewAccessPolicy(address: "::1", port: 9)
        #expect(v6.hosts.contains("[::1]:9") && v6.hosts.contains("localhost:9"))
    }

    @Test("--view parses [ADDR:]PORT")
    func parse() {
        #expect(ViewAccessPolicy.parse("8099")! == ("127.0.0.1", 8099))
        #expect(ViewAccessPolicy.parse("0.0.0.0:80")! == ("0.0.0.0", 80))
        #expect(ViewAccessPolicy.parse("[::1]:8099")! == ("::1", 8099))
        #expect(ViewAccessPolicy.parse("localhost:5")! == ("127.0.0.1", 5))
        for bad in ["", "x", ":80", "1.2.3.4:", "1.2.3.4:70000", "[::1]8099", "[::1"] { #expect(ViewAccessPolicy.parse(bad) == nil, "\(bad)") }
    }

    @Test("Stream labels are escaped in the JSON the page reads")
    func json() {
        let s = ViewStreamState(label: "a\"b\\c</script>\n", frames: 2, sequence: 1, rollDegrees: 1.5, pitchDegrees: -2, yawDegrees: 0, receivedNanoseconds: 9)
        let text = ViewJSON.update([s], refusals: [.foreignHost: 3])
        #expect(text.contains(#""label":"a\"b\\c\u003c/script\u003e\n""#), "\(text)")
        #expect(text.hasSuffix(#""refused":{"foreign-host":3,"foreign-origin":0}}"#))
    }

    @Test("Per stream: a gap in the sequence counts as lost, a late one as reordered (and no longer lost)")
    func lossAndReorder() {
        var s = ViewStreamState(label: "x", frames: 1, sequence: 1, rollDegrees: 0, pitchDegrees: 0, yawDegrees: 0, receivedNanoseconds: 0)
        s.take(sequence: 2, roll: 1, pitch: 0, yaw: 0, nanoseconds: 1)
        s.take(sequence: 5, roll: 2, pitch: 0, yaw: 0, nanoseconds: 2)  // 3 and 4 missing
        #expect(s.lost == 2 && s.reordered == 0 && s.sequence == 5 && s.frames == 3)
        s.take(sequence: 4, roll: 3, pitch: 0, yaw: 0, nanoseconds: 3)  // 4 arrives late
        #expect(s.lost == 1 && s.reordered == 1 && s.sequence == 5 && s.rollDegrees == 3)
        #expect(s.json.contains("\"lost\":1,\"reordered\":1"))
    }
}
