import Mouse3DCore
import Mouse3DLinux

/// `mouse3d bench dsu`: a `mouse3d run` serving a 1 kHz log over DSU to two subscribers on loopback:
/// the latency from each sample's arrival to its datagram (p50/p99, measured by the server), what the
/// subscribers receive, and the server's CPU, side by side with the same process serving nobody.
public struct DSUBenchmark {
    /// The `mouse3d` executable.
    public var executable: String
    /// Seconds per measurement.
    public var seconds: Double

    public init(executable: String, seconds: Double) {
        self.executable = executable
        self.seconds = seconds
    }

    public func run() throws {
        let log = FileSystem.temporaryDirectory + "/mouse3d-bench-dsu-\(FileSystem.processID).csv"
        defer { try? FileSystem.remove(log) }
        let sink = try BufferedOutput(creatingFileAt: log)
        try sink.writeLine(MotionLogWriter.header)
        for point in BenchmarkMotion.script().generate().prefix(10_000) {
            try sink.writeLine(MotionLogWriter.row(point.sample))
        }
        try sink.flush()
        print(
            "DSU server at 1000 samples/s (a 10 s 1 kHz log looped by `mouse3d run --dsu`), \(fixed(seconds, 0)) s per measurement:"
        )
        let idle = try measure(log: log, clients: 0)
        let served = try measure(log: log, clients: 2)
        print("  no subscriber:   server CPU \(fixed(idle.cpu, 2))% of a core")
        print(
            "  two subscribers: server CPU \(fixed(served.cpu, 2))% of a core; received \(served.received.map(String.init).joined(separator: " and ")) packets "
                + "(\(fixed(Double(served.received.reduce(0, +)) / Double(max(1, served.received.count)) / seconds, 0))/s each), all valid: \(served.valid)"
        )
        print("  \(served.latency)")
    }

    func measure(log: String, clients count: Int) throws -> (cpu: Double, received: [Int], valid: Bool, latency: String)
    {
        let server = try ChildProcess(
            executable: executable,
            arguments: ["run", "--source", "replay:\(log)", "--loop", "--dsu", "127.0.0.1:0", "--dsu-latency"],
            standardOutputPath: "/dev/null")
        var port: UInt16?
        while port == nil, let line = try server.readErrorLine() {
            if let r = line.firstRange(of: "DSU server at 127.0.0.1:") {
                port = UInt16(line[r.upperBound...].prefix { $0.isNumber })
            }
        }
        guard let port, let address = try? SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: port, passive: false)
        else {
            throw ActionableError("mouse3d run --dsu did not start: \(try server.readAllErrors())")
        }
        let sockets = try (0..<count).map { _ in try UDPSocket(family: address.family) }
        let request = DSUProtocol.request(.padData(slot: nil, mac: nil), clientID: 7)
        var received = [Int](repeating: 0, count: count)
        var valid = true
        MonotonicClock.sleep(nanoseconds: 1_000_000_000)  // start-up (log parsing) is not the steady state
        let cpu0 = try ProcessStatistics.cpuSeconds(pid: server.pid)
        let t0 = MonotonicClock.nanoseconds()
        let end = t0 + UInt64(seconds * 1e9)
        var renew: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 256)
        while MonotonicClock.nanoseconds() < end {
            if MonotonicClock.nanoseconds() >= renew {
                for s in sockets { _ = try request.withUnsafeBytes { try s.send($0, to: address) } }
                renew = MonotonicClock.nanoseconds() + 1_000_000_000
            }
            _ = try EventLoop.waitUntilReadable(sockets.map(\.descriptor), timeoutNanoseconds: 10_000_000)
            for (i, s) in sockets.enumerated() {
                while let (n, _) = try buffer.withUnsafeMutableBytes({ try s.receive(into: $0) }) {
                    received[i] += 1
                    if n != 100 || buffer[0] != 0x44 || buffer[3] != 0x53 { valid = false }
                }
            }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
        let cpu = (try ProcessStatistics.cpuSeconds(pid: server.pid) - cpu0) / elapsed * 100
        try server.terminate()
        let report = try server.readAllErrors()
        _ = try server.wait()
        let latency =
            report.split(separator: "\n").first { $0.contains("latency arrival→datagram") }
            .map { "latency " + String($0[$0.firstRange(of: "arrival→datagram")!.lowerBound...]) }
            ?? "no latency figures"
        return (cpu, received, valid, latency)
    }
}
