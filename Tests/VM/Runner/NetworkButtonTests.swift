import CLinux
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// Held buttons over an impaired link: a sender in namespace `s` (this runner, its socket made
/// there with setns) streams plain datagrams at 250 Hz with the primary button held to `receive
/// --uinput pointer` in namespace `r`. Loss and jitter must not release the button; an outage
/// releases it after the receiver's 500 ms of silence (no stuck input), and the stream's return
/// presses it again at once.
extension NetworkTests {
    static func buttons() throws {
        tearDown()
        try setUp()
        defer { tearDown() }
        let receiver = try ChildProcess(
            executable: ip,
            arguments: [
                "netns", "exec", "r", mouse3d, "receive", "--insecure", "--listen", "10.9.0.2:24931", "--uinput",
                "pointer"
            ],
            standardOutputPath: "/dev/null")
        defer {
            try? receiver.send(signal: SIGTERM)
            _ = try? receiver.wait()
        }
        while let line = try receiver.readErrorLine(), !line.contains("listening on") {}
        // The runner's socket lives in `s`; the runner itself goes back to its own namespace.
        let own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        let inS = open("/var/run/netns/s", O_RDONLY | O_CLOEXEC)
        try expect(own >= 0 && inS >= 0, "namespace files: \(own), \(inS)")
        defer {
            close(own)
            close(inS)
        }
        try expect(setns(inS, Int32(CLONE_NEWNET)) == 0, "setns into s: errno \(errno)")
        let streamer: AttitudeStreamer
        do {
            defer { _ = setns(own, Int32(CLONE_NEWNET)) }
            streamer = try AttitudeStreamer(
                peers: [try SocketAddress.resolve("10.9.0.2:24931", defaultPort: 0, passive: false)], format: .datagram)
        }
        var next = MonotonicClock.nanoseconds()
        var device: EvdevDevice?
        var presses: [UInt64] = []
        var releases: [UInt64] = []
        // Counted as changes of state: a press read both from the state at opening (EVIOCGKEY) and
        // from the queue (it arrived between the open and that ioctl) is one press.
        var pressed = false
        func note(_ down: Bool) {
            guard down != pressed else { return }
            pressed = down
            if down {
                presses.append(MonotonicClock.nanoseconds())
            } else {
                releases.append(MonotonicClock.nanoseconds())
            }
        }
        /// Streams at 250 Hz with the button held for `seconds`, recording BTN_LEFT changes as they come.
        func stream(_ seconds: Double) throws {
            let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
            while MonotonicClock.nanoseconds() < end {
                next += 4_000_000
                MonotonicClock.sleep(untilNanoseconds: next)
                try streamer.send(
                    AttitudeFrame(roll: 0, pitch: 0, yaw: 0), buttons: [.clutch, .primary],
                    now: MonotonicClock.nanoseconds())
                if device == nil, let path = inputEventNode(named: "mouse3d pointer"),
                    let opened = try? EvdevDevice(path: path)
                {
                    // A press in the frame that made the device may come before it could be opened: its state then says so.
                    device = opened
                    if opened.currentValue(type: Int32(EV_KEY), code: Int32(BTN_LEFT)) == 1 { note(true) }
                }
                while let d = device {
                    switch try? d.next() {
                    case .event(let e)?, .resynchronised(let e)?:
                        if e.type == Int32(EV_KEY) && e.code == Int32(BTN_LEFT) {
                            if e.value == 1 { note(true) } else if e.value == 0 { note(false) }
                        }
                        continue
                    case .wouldBlock?: break
                    case nil:
                        // Removed on stream loss. The receiver releases, then destroys, microseconds
                        // apart; evdev returns ENODEV as soon as the device is gone, dropping events
                        // still queued, so the release may be unreadable: the removal stands for it.
                        device = nil
                        if pressed { note(false) }
                    }
                    break
                }
            }
        }
        let started = MonotonicClock.nanoseconds()
        while presses.isEmpty && MonotonicClock.nanoseconds() - started < 15_000_000_000 { try stream(0.1) }
        try stream(1)
        try expect(
            presses.count == 1 && releases.isEmpty,
            "clean link: one press, no release (presses \(presses.count), releases \(releases.count))")

        try impair(["loss", "10%", "delay", "20ms", "10ms"], replacing: false)
        try stream(4)
        try expect(
            presses.count == 1 && releases.isEmpty,
            "10 % loss with 20 ± 10 ms jitter released the held button \(releases.count) times")

        // The outage begins somewhere while tc runs (100–200 ms here): the release must come 500 ms
        // after that, so at least 500 ms after tc started and not much more than 500 ms after it ended.
        let cutStarts = MonotonicClock.nanoseconds()
        try impair(["loss", "100%"], replacing: true)
        let cutEnds = MonotonicClock.nanoseconds()
        try stream(2)
        try expect(releases.count == 1, "an outage released the button \(releases.count) times")
        let sinceStart = Double(releases[0] - cutStarts) / 1e6
        let sinceEnd = Double(Int64(releases[0]) - Int64(cutEnds)) / 1e6
        try expect(
            sinceStart >= 490 && sinceEnd <= 900,
            "released \(sinceStart) ms after tc started cutting the link, \(sinceEnd) ms after it was done; 500 ms of silence promised"
        )
        let releasedAfter = sinceEnd

        try impair(nil, replacing: true)
        let restored = MonotonicClock.nanoseconds()
        try stream(2)
        try expect(presses.count == 2, "pressed again after the outage: \(presses.count) presses")
        let pressedAfter = Double(presses[1] - restored) / 1e6
        say(
            "VMTEST-INFO netem buttons: held through 10 % loss with 20 ± 10 ms jitter for 4 s; released \(Int(sinceStart)) ms after tc began cutting the link "
                + "and \(Int(releasedAfter)) ms after it was done (500 ms of silence promised); pressed again \(Int(pressedAfter)) ms after the link returned (tc itself takes 100–200 ms here)"
        )
        try expect(pressedAfter < 1500, "pressed again only \(pressedAfter) ms after the link returned")
    }
}
