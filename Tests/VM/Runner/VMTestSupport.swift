import CLinux
import Glibc
import Mouse3DLinux
import VMDeviceEmulators

/// A failed expectation inside a VM test.
struct VMTestFailure: Error, CustomStringConvertible {
    var description: String
}

/// Fails the running test with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: UInt = #line) throws {
    if !condition { throw VMTestFailure(description: "line \(line): \(message())") }
}

/// Waits up to `seconds` for `probe` to return a value; fails the test with `what` otherwise.
func waitFor<T>(_ what: String, seconds: Double = 10, _ probe: () throws -> T?) throws -> T {
    let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while MonotonicClock.nanoseconds() < end {
        if let value = try probe() { return value }
        MonotonicClock.sleep(nanoseconds: 20_000_000)
    }
    throw VMTestFailure(description: "timed out after \(seconds) s waiting for \(what)")
}

/// Reads events from `device` until a `SYN_REPORT` (or `seconds` pass); returns the frame's events.
func readFrame(_ device: EvdevDevice, seconds: Double = 3) throws -> [EvdevDevice.Event] {
    var events: [EvdevDevice.Event] = []
    let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while MonotonicClock.nanoseconds() < end {
        switch try device.next() {
        case .event(let e), .resynchronised(let e):
            if e.type == Int32(EV_SYN) && e.code == Int32(SYN_REPORT) { return events }
            events.append(e)
        case .wouldBlock:
            try EventLoop.waitUntilReadable([device.descriptor], timeoutNanoseconds: 50_000_000)
        }
    }
    throw VMTestFailure(description: "no complete event frame from \(device.path) within \(seconds) s (got \(events))")
}

/// Prints a line at once (the serial console is the only channel to the host).
func say(_ text: String) {
    StandardError.write(text + "\n")
}

/// The port in a child's "listening on 127.0.0.1:PORT" line (its standard error), or a failure.
func loopbackPort(announcedBy child: ChildProcess, _ who: String = "the receiver") throws -> Int {
    while let line = try child.readErrorLine() {
        if let r = line.firstRange(of: "127.0.0.1:"), let port = Int(line[r.upperBound...].prefix { $0.isNumber }) {
            return port
        }
    }
    throw VMTestFailure(description: "\(who) did not start")
}

/// Waits (up to 15 s) until `controller`'s motion device is enumerated; unplugs it if it never is.
func plugController<C: MotionControllerEmulator>(_ controller: C) throws -> C {
    let udev = try Udev()
    do {
        _ = try waitFor("the \(controller.modelName) motion device", seconds: 15) {
            try MotionSourceEnumerator.evdevDevices(udev: udev).first { $0.name == controller.motionName }
        }
    } catch {
        try? controller.unplug()
        throw error
    }
    return controller
}

/// Plugs an emulated DualSense and waits (up to 15 s) until its motion device is enumerated.
/// Unplug it when done.
func plugDualSense() throws -> DualSenseEmulator { try plugController(DualSenseEmulator()) }

/// Each thread of process `pid` as the kernel sees it (state, CPU ticks, the system call it is in):
/// what a test prints when a child does not do what it waited for, to tell stuck from slow.
func threadStates(of pid: Int32) -> String {
    func read(_ path: String) -> String {
        (try? FileContents.read(path: path)).map {
            String(decoding: $0.filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        } ?? "?"
    }
    let tasks = (try? DirectoryListing.names(in: "/proc/\(pid)/task")) ?? []
    if tasks.isEmpty { return "  process \(pid) is gone" }
    return tasks.map { task in
        let stat = read("/proc/\(pid)/task/\(task)/stat").split(separator: " ")
        let state =
            stat.count > 14 ? "state \(stat[2]), user \(stat[13]) ticks, system \(stat[14]) ticks" : "stat unreadable"
        return
            "  thread \(task): \(state), wchan \(read("/proc/\(pid)/task/\(task)/wchan")), syscall \(read("/proc/\(pid)/task/\(task)/syscall"))"
    }.joined(separator: "\n")
}

/// Writes `text` to the sysfs attribute `path` in one `write(2)`, as `echo TEXT > PATH` does.
func writeAttribute(_ text: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw VMTestFailure(description: "open \(path): errno \(errno)") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else {
        throw VMTestFailure(description: "write '\(text)' to \(path): errno \(errno)")
    }
}

/// The event node of the input device whose name starts with `prefix`, if there is one now: in /dev
/// too, which devtmpfs fills a moment after sysfs shows the device (CI once opened it in between
/// and met ENOENT).
func inputEventNode(named prefix: String) -> String? {
    for entry in (try? DirectoryListing.names(in: "/sys/class/input")) ?? [] where entry.hasPrefix("event") {
        let name = String(
            decoding: (try? FileContents.read(path: "/sys/class/input/\(entry)/device/name")) ?? [], as: UTF8.self)
        if name.hasPrefix(prefix) && access("/dev/input/\(entry)", F_OK) == 0 { return "/dev/input/\(entry)" }
    }
    return nil
}

/// The virtual pointer's REL sums from now until the emulator, holding at `gate` (one of
/// `gates`' closed gates, inside a still stretch of the script), has sent everything before it and
/// mouse3d has carried it through: the pointer stood still for a second of this thread's own
/// running (a wait that overslept, the VM starved, counts nothing). Then the gate opens. A starved
/// VM sends late, then in a burst; the hold keeps the next motion out of this window whatever the
/// lateness. Deadlines (120 s for the emulator, 20 s for stillness) only bound a real failure: a
/// pointer that never stands still shows in the sums.
func pointerMoves(
    _ device: EvdevDevice, through gate: Double, gates: ScriptGate, sent: () -> Double
) -> (x: Int32, y: Int32) {
    var x: Int32 = 0
    var y: Int32 = 0
    /// Reads for `seconds`; returns how many moves came.
    func read(_ seconds: Double) -> Int {
        let events = OutputTests.events(device, seconds: seconds)
        x += OutputTests.sum(events, code: Int32(REL_X))
        y += OutputTests.sum(events, code: Int32(REL_Y))
        return events.filter { $0.type == Int32(EV_REL) }.count
    }
    let reached = MonotonicClock.nanoseconds() + 120_000_000_000
    while sent() < gate && MonotonicClock.nanoseconds() < reached { _ = read(0.05) }
    let stillDeadline = MonotonicClock.nanoseconds() + 20_000_000_000
    var still = 0.0
    while still < 1 && MonotonicClock.nanoseconds() < stillDeadline {
        let before = MonotonicClock.nanoseconds()
        let moves = read(0.05)
        let took = Double(MonotonicClock.nanoseconds() - before) * 1e-9
        still = moves > 0 || took > 0.15 ? 0 : still + took
    }
    gates.open(through: gate)
    return (x, y)
}

/// How long this VM went without running its threads: a thread sleeping 10 ms at a time records
/// its worst oversleep until stopped. A VM starved by a busy host stalls every thread alike, so a
/// real-time bound measured meanwhile says nothing about mouse3d when the probe stalled as long.
final class StallProbe: @unchecked Sendable {
    private var worst: UInt64 = 0
    private var running = true
    private var lock = pthread_mutex_t()

    init() {
        pthread_mutex_init(&lock, nil)
        DedicatedThread.start { [self] in
            while true {
                let before = MonotonicClock.nanoseconds()
                MonotonicClock.sleep(nanoseconds: 10_000_000)
                let over = MonotonicClock.nanoseconds() - before - 10_000_000
                pthread_mutex_lock(&lock)
                worst = max(worst, over)
                let go = running
                pthread_mutex_unlock(&lock)
                if !go { return }
            }
        }
    }

    /// Stops the probe; returns its worst stall in milliseconds.
    func stop() -> Double {
        pthread_mutex_lock(&lock)
        running = false
        let w = worst
        pthread_mutex_unlock(&lock)
        return Double(w) / 1e6
    }
}
