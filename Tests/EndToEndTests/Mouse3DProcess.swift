import Foundation
import Glibc
import Mouse3DLinux
import Testing

/// A running `mouse3d` child process with its output captured.
final class Mouse3DProcess: @unchecked Sendable {
    // @unchecked: `process` and the pipes are only touched from the test that owns this value, and
    // Foundation's Process is thread-safe for terminate/wait.
    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()
    private var stdoutData = Data()
    private var stderrData = Data()
    private let lock = NSLock()

    /// The executable under test: `MOUSE3D` if set, else `mouse3d` beside the test bundle.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["MOUSE3D"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "mouse3d")
    }

    /// A system bus address where no bus is.
    static let noBus = "unix:path=/nonexistent/mouse3d-tests-no-system-bus"

    /// The bundled sample log.
    static var sampleLog: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Mouse3DCoreTests/Fixtures/sample-motion.csv").path
    }

    /// A new empty configuration directory (XDG_CONFIG_HOME) for one test's processes.
    static func makeConfigHome() -> String {
        let path = NSTemporaryDirectory() + "mouse3d-e2e-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Starts `mouse3d ARGUMENTS` with XDG_CONFIG_HOME at `configHome` (default: a new empty
    /// directory, so no test ever reads or writes the user's own keys).
    init(_ arguments: [String], configHome: String? = nil, environment extra: [String: String] = [:]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = configHome ?? Self.makeConfigHome()
        // No test reaches the machine's own Avahi (it would announce on real networks): the
        // discovery tests give their private loopback-only bus, every other test none.
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = Self.noBus
        // A crash ends the child at once (a failed test), rather than in a backtracer that can hang.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        stdout.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.stdoutData.append(d) }
        }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.stderrData.append(d) }
        }
        try process.run()
    }

    var output: String { lock.withLock { String(decoding: stdoutData, as: UTF8.self) } }

    /// The process's resident memory now (`VmRSS` of /proc/PID/status), in KiB; 0 once it is gone.
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    var errors: String { lock.withLock { String(decoding: stderrData, as: UTF8.self) } }

    /// Waits until standard error contains `text` (or the time runs out); returns whether it did.
    @discardableResult
    func waitForError(containing text: String, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if errors.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Waits until standard output contains `text` (or the time runs out); returns whether it did.
    @discardableResult
    func waitForOutput(containing text: String, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if output.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Waits until standard output has at least `count` lines (or the time runs out); the count
    /// it has then. For a test that counts what a process printed: the lines come through a pipe
    /// and a reader thread, later than the process wrote them on a busy machine.
    @discardableResult
    func waitForOutputLines(atLeast count: Int, seconds: Double = 15) -> Int {
        let end = Date().addingTimeInterval(seconds)
        var lines = output.split(separator: "\n").count
        while lines < count && Date() < end {
            Thread.sleep(forTimeInterval: 0.02)
            lines = output.split(separator: "\n").count
        }
        return lines
    }

    /// The port from "listening on ADDR:PORT".
    func listeningPort() throws -> Int {
        #expect(waitForError(containing: "listening on"), "receiver did not start: \(errors)")
        let line = try #require(errors.split(separator: "\n").first { $0.contains("listening on") })
        let address = try #require(line.split(separator: " ").first { $0.contains(":") && $0.last?.isNumber == true })
        return try #require(Int(address.split(separator: ":").last!))
    }

    /// Waits for the process to end by itself, at most `seconds`; kills it and fails if it does not.
    func waitForExit(seconds: Double = 30) -> Int32 {
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            Issue.record("process \(process.arguments ?? []) did not end within \(seconds) s")
        }
        process.waitUntilExit()
        drain()
        return process.terminationStatus
    }

    /// Sends SIGTERM and waits for a clean exit.
    func terminate() -> Int32 {
        process.terminate()
        return waitForExit(seconds: 10)
    }

    private func drain() {
        stdout.fileHandleForReading.readabilityHandler = nil
        stderr.fileHandleForReading.readabilityHandler = nil
        let rest = stdout.fileHandleForReading.readDataToEndOfFile()
        let restErr = stderr.fileHandleForReading.readDataToEndOfFile()
        lock.withLock {
            stdoutData.append(rest)
            stderrData.append(restErr)
        }
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// Runs `mouse3d` to completion and returns its standard output.
func runMouse3D(_ arguments: [String], configHome: String? = nil, environment: [String: String] = [:]) throws -> (
    status: Int32, output: String, errors: String
) {
    let p = try Mouse3DProcess(arguments, configHome: configHome, environment: environment)
    let status = p.waitForExit(seconds: 60)
    return (status, p.output, p.errors)
}

/// The summary figures a receiver prints at exit.
struct ReceiverSummary {
    var frames = 0, dropped = 0, lost = 0, reordered = 0

    init(_ errors: String) throws {
        let line = try #require(
            errors.split(separator: "\n").last { $0.contains("summary:") }, "no summary in: \(errors)")
        func value(_ name: String) -> Int {
            guard let r = line.range(of: "\(name) ") else { return -1 }
            return Int(line[r.upperBound...].prefix { $0.isNumber }) ?? -1
        }
        frames = value("frames")
        dropped = value("dropped")
        lost = value("lost")
        reordered = value("reordered")
    }
}

/// A loopback UDP port free a moment ago (bound to port 0, read back, closed), for a test that
/// must name a port, so it never takes a fixed one another test or a running mouse3d holds.
func freeUDPPort() throws -> Int {
    let socket = try UDPSocket(family: AF_INET)
    try socket.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
    return Int(try socket.localAddress().port)
}

/// What the kernel holds for the UDP socket bound to `port` (/proc/net/udp and udp6): datagrams
/// queued unread, and those it dropped (a full buffer), or nil when no socket has that port.
func udpQueue(port: Int) -> (queuedBytes: Int, drops: Int)? {
    for table in ["/proc/net/udp", "/proc/net/udp6"] {
        let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 13, let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == port,
                let rx = fields[4].split(separator: ":").last
            else { continue }
            return (Int(rx, radix: 16) ?? -1, Int(fields[12]) ?? -1)
        }
    }
    return nil
}

/// Waits until the receiver on `port` has read everything queued for it (or `seconds` pass), so
/// a test stops it after it has counted all it was sent, not after a sleep a busy machine outlasts.
/// Returns the kernel's drops for that socket (nil: the queue never emptied).
@discardableResult
func waitUntilRead(port: Int, seconds: Double = 10) -> Int? {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if let q = udpQueue(port: port), q.queuedBytes == 0 { return q.drops }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return nil
}

/// Tests whose figures need the machine's CPU (floods measured against a rate, long CPU-bound
/// benchmarks) take this lock, so that two of them never run at once while the rest of the suite
/// runs in parallel.
enum CPUHeavy {
    static let lock = NSLock()

    static func run<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// How busy the rest of the machine was during a measurement: the CPU time the kernel counted busy on
/// every core (/proc/stat), less what this test process and its children took, as a share of all
/// the cores' time. A figure measured under attack (a flood's rate, the frames a receiver kept) that
/// falls short while others took the CPU says nothing about mouse3d: the test measures again, and
/// skips with the reason if the load stays (``UnderLoad``). Falling short on a quiet machine fails.
struct MachineLoad {
    private let busy: Double, own: Double, wall: Date
    private let children: [Int32]
    /// Threads of this process that are the measurement's own (a flood's); with them, the rest of
    /// this process (other tests running at once) counts as others.
    private let threads: [Int32]?

    init(children: [Int32], threads: [Int32]? = nil) {
        self.children = children
        self.threads = threads
        busy = Self.busyTicks()
        own = Self.ownTicks(children, threads: threads)
        wall = Date()
    }

    /// The share (0–1) of all cores' time since `init` that went to other processes.
    var othersShare: Double {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let capacity =
            Date().timeIntervalSince(wall) * ticksPerSecond * Double(ProcessInfo.processInfo.activeProcessorCount)
        let others = (Self.busyTicks() - busy) - (Self.ownTicks(children, threads: threads) - own)
        return capacity > 0 ? max(0, others / capacity) : 0
    }

    /// user + nice + system + irq + softirq + steal of every core, in clock ticks.
    static func busyTicks() -> Double {
        let text = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
        let fields = (text.split(separator: "\n").first ?? "").split(separator: " ").dropFirst().compactMap {
            Double($0)
        }
        guard fields.count >= 8 else { return 0 }
        return fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
    }

    /// This process's CPU time with its reaped children's (or, with `threads`, those threads' only),
    /// and each live child's, in clock ticks. A thread's must be read while it runs.
    static func ownTicks(_ children: [Int32], threads: [Int32]? = nil) -> Double {
        func ticks(_ pid: String, withChildren: Bool) -> Double {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            guard let close = text.lastIndex(of: ")") else { return 0 }
            // Fields after the name: state is 3; utime 14, stime 15, cutime 16, cstime 17.
            let f = text[text.index(after: close)...].split(separator: " ").compactMap { Double($0) }
            guard f.count >= 14 else { return 0 }
            return f[10] + f[11] + (withChildren ? f[12] + f[13] : 0)
        }
        let mine =
            threads.map { $0.map { ticks("self/task/\($0)", withChildren: false) }.reduce(0, +) }
            ?? ticks("self", withChildren: true)
        return mine + children.map { ticks("\($0)", withChildren: false) }.reduce(0, +)
    }
}

/// Measurements under attack that the machine's own load can make meaningless (see ``MachineLoad``).
enum UnderLoad {
    /// Thrown by a measurement that fell short while the rest of the machine took the CPU.
    struct Meaningless: Error { let reason: String }

    /// More than this share of the cores going to other processes counts as a busy machine.
    static let busyShare = 0.3

    /// Runs `measure` up to `attempts` times while it throws ``Meaningless``; then skips the test
    /// (the framework's own cancel, with the reasons), never passing silently.
    static func measure(attempts: Int = 3, _ measure: () throws -> Void) throws {
        var reasons: [String] = []
        for attempt in 1...attempts {
            do {
                return try measure()
            } catch let m as Meaningless {
                reasons.append(m.reason)
                print("attempt \(attempt) of \(attempts) meant nothing, measuring again: \(m.reason)")
            }
        }
        try Test.cancel(
            "the machine stayed too busy for the figure to mean anything: \(reasons.joined(separator: "; "))")
    }

    /// Throws ``Meaningless`` when `short` (the figure fell short) and others took more than
    /// ``busyShare`` of the machine meanwhile; a shortfall on a quiet machine is left to the caller's
    /// expectations, and fails.
    static func check(_ short: Bool, _ what: @autoclosure () -> String, load: MachineLoad) throws {
        try check(short, what(), othersShare: load.othersShare)
    }

    /// As ``check(_:_:load:)``, with the others' share read already (while the measurement's own
    /// threads still ran).
    static func check(_ short: Bool, _ what: @autoclosure () -> String, othersShare share: Double) throws {
        if short && share > busyShare {
            throw Meaningless(reason: "\(what()) while other processes took \(Int(share * 100))% of the machine")
        }
    }
}
