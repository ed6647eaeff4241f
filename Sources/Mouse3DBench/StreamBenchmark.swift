import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// `mouse3d bench stream`: streaming on loopback between real `mouse3d` processes. Throughput:
/// this process sends at rising rates to a `receive --print --format jsonl`; latency, CPU and memory
/// at 1000 frames/s between real `send` and `receive --latency` processes; the receiver's CPU per
/// frame in interleaved rounds; and the machine's floor (a minimal UDP pair), for each wire format.
public struct StreamBenchmark {
    /// Seconds per throughput step.
    public var stepSeconds: Double
    /// Seconds of the 1000 frames/s run.
    public var seconds: Double
    /// Throughput rates to try, frames/s, ascending.
    public var rateList: [Int]
    /// Rounds of the receiver-CPU-per-frame measurement.
    public var capacityRounds: Int
    /// The mouse3d whose processes are measured (nil: this one): an older build, measured by this
    /// build's code, so that two builds compare under one way of measuring.
    public var measured: String?
    /// Wire formats to measure.
    public var formatList: [WireFormat]

    /// A benchmark with these settings.
    public init(stepSeconds: Double, seconds: Double, rates: [Int], capacityRounds: Int, formats: [WireFormat]) {
        self.stepSeconds = stepSeconds
        self.seconds = seconds
        rateList = rates
        self.capacityRounds = capacityRounds
        formatList = formats
    }

    public func run() throws {
        let executable = try measured ?? FileSystem.executablePath()
        let pairing = try BenchPairing()
        defer { pairing.remove() }
        var sustained: [WireFormat: Int] = [:]
        var p99: [WireFormat: Double] = [:]
        for format in formatList {
            print("\(format.benchName): throughput (receiver printing jsonl to /dev/null, \(stepSeconds) s per step):")
            var best = 0
            var failed: Int?
            func step(_ rate: Int) throws -> Bool {
                let (sent, received, _) = try throughputStep(
                    executable: executable, rate: rate, format: format, pairing: pairing)
                let ok = sent == received
                print(
                    "  \(rate) frames/s: sent \(sent), received \(received), lost \(sent - received)\(ok ? "" : "  <- loss")"
                )
                return ok
            }
            for rate in rateList {
                if try step(rate) {
                    best = rate
                } else {
                    failed = rate
                    break
                }
            }
            // Narrow the gap between the last rate passed and the first failed (three halvings).
            if var high = failed {
                for _ in 0..<3 where high - best > 2000 {
                    let middle = (best + high) / 2 / 1000 * 1000
                    if try step(middle) { best = middle } else { high = middle }
                }
            }
            print("  sustained without loss: \(best) frames/s (highest step tried: \(rateList.last!))")
            sustained[format] = best
            if format != .raw {
                p99[format] = try latencyRun(executable: executable, format: format, pairing: pairing).p99
            }
        }
        // Loss-free rates swing with the machine's scheduling; the receiver's CPU per frame at a
        // fixed 50,000 frames/s is steadier, measured in rounds that interleave the formats so
        // that drift in the machine's speed falls on all of them alike.
        var perFrame: [WireFormat: [Double]] = [:]
        var floorPerFrame: [Double] = []
        for _ in 0..<capacityRounds {
            for format in formatList {
                let (_, _, cpu) = try throughputStep(
                    executable: executable, rate: 50_000, format: format, pairing: pairing, quiet: true)
                perFrame[format, default: []].append(cpu)
            }
            floorPerFrame.append(try floorCapacityStep(executable: executable, rate: 50_000))
        }
        print("receiver CPU per frame at 50,000 frames/s, median of \(capacityRounds) interleaved rounds:")
        for format in formatList {
            let m = median(perFrame[format] ?? [])
            let all = (perFrame[format] ?? []).map { fixed($0, 2) }.joined(separator: " ")
            print(
                "  \(format.benchName): \(fixed(m, 2)) µs (\(m > 0 ? Int(1e6 / m) : 0) frames/s per core; rounds: \(all))"
            )
        }
        let floorMedian = median(floorPerFrame)
        print(
            "  floor (the same bursts into a receiver blocked in recvfrom, printing nothing): \(fixed(floorMedian, 2)) µs"
                + " (rounds: \(floorPerFrame.map { fixed($0, 2) }.joined(separator: " ")))")
        let sealedCPU = median(perFrame[.sealed] ?? [])
        let plainCPU = median(perFrame[.datagram] ?? [])
        let rawCPU = median(perFrame[.raw] ?? [])
        if sealedCPU > 0 && rawCPU > 0 {
            print("sealing cost: receiver capacity sealed/raw = \(fixed(rawCPU / sealedCPU * 100, 1))% (target >= 90%)")
        }
        if sealedCPU > 0 && plainCPU > 0 {
            print("sealing cost: receiver capacity sealed/plain = \(fixed(plainCPU / sealedCPU * 100, 1))%")
        }
        if let sealed = sustained[.sealed], let plain = sustained[.datagram], plain > 0 {
            print(
                "sealing cost: sustained frames/s sealed/plain datagrams = \(fixed(Double(sealed) / Double(plain) * 100, 1))%"
            )
        }
        if let sealed = sustained[.sealed], let raw = sustained[.raw], raw > 0 {
            print(
                "sealing cost: sustained frames/s sealed/raw = \(fixed(Double(sealed) / Double(raw) * 100, 1))% (target >= 90%)"
            )
        }
        if let sealed = p99[.sealed], let plain = p99[.datagram], plain > 0 {
            print(
                "sealing cost: p99 latency sealed/plain = \(fixed(sealed / plain * 100, 1))% (\(fixed(sealed, 1)) µs vs \(fixed(plain, 1)) µs; target <= 110%; raw frames carry no send time)"
            )
        }
        try floorRun(executable: executable)
    }

    /// The same measurement for the least a 1 kHz UDP pair can do on this machine: a sender that
    /// sleeps 1 ms (clock_nanosleep) then calls sendto, and a receiver blocked in recvfrom.
    func floorRun(executable: String) throws {
        let count = Int(seconds * 1000) + 1000
        let (receiver, port) = try startFloorReceiver(executable, count: count)
        let sender = try ChildProcess(
            executable: executable,
            arguments: ["bench", "floor-peer", "--role", "sender", "--port", "\(port)", "--count", "\(count + 100)"])
        MonotonicClock.sleep(nanoseconds: 1_000_000_000)
        let cpu0 = (
            try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid)
        )
        let t0 = MonotonicClock.nanoseconds()
        MonotonicClock.sleep(nanoseconds: UInt64((seconds - 0.5) * 1e9))
        let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
        let cpu1 = (
            try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid)
        )
        let line = try floorLatencyLine(receiver)
        try sender.terminate()
        try sender.wait()
        let latency = line.map { String($0.split(separator: ":", maxSplits: 2).last ?? "") } ?? " n/a"
        print("machine floor at 1000 frames/s (minimal sleep+sendto sender, blocking recvfrom receiver):")
        print("  latency send→receive:\(latency)")
        print("  sender:   CPU \(fixed((cpu1.0 - cpu0.0) / elapsed * 100, 2))% of a core")
        print("  receiver: CPU \(fixed((cpu1.1 - cpu0.1) / elapsed * 100, 2))% of a core")
    }

    /// Starts a receiver on an ephemeral loopback port; returns it with the port it reported.
    func startReceiver(_ executable: String, _ extra: [String], format: WireFormat) throws -> (ChildProcess, Int) {
        let receiver = try ChildProcess(
            executable: executable, arguments: ["receive", "--listen", "127.0.0.1:0", "--print"] + format.flags + extra,
            standardOutputPath: "/dev/null")
        guard let port = try loopbackPort(announcedBy: receiver) else {
            throw ActionableError("the receiver did not start: \(try receiver.readAllErrors())")
        }
        return (receiver, port)
    }

    /// The port in a child's "listening on 127.0.0.1:PORT" line (read from its standard error),
    /// or `nil` if it ends without one.
    func loopbackPort(announcedBy child: ChildProcess) throws -> Int? {
        while let line = try child.readErrorLine() {
            if let r = line.firstRange(of: "127.0.0.1:"), let port = Int(line[r.upperBound...].prefix { $0.isNumber }) {
                return port
            }
        }
        return nil
    }

    /// Stops a receiver with SIGTERM and returns what it printed on standard error.
    func stop(_ receiver: ChildProcess) throws -> String {
        try receiver.terminate()
        let report = try receiver.readAllErrors()
        try receiver.wait()
        return report
    }

    func summaryValue(_ name: String, in text: String) -> Int {
        guard let line = text.split(separator: "\n").last(where: { $0.contains("summary:") }),
            let r = line.firstRange(of: "\(name) ")
        else { return -1 }
        return Int(line[r.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    func throughputStep(executable: String, rate: Int, format: WireFormat, pairing: BenchPairing, quiet: Bool = false)
        throws -> (sent: Int, received: Int, cpuPerFrame: Double)
    {
        let (receiver, port) = try startReceiver(executable, ["--format", "jsonl"], format: format)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let streamer = try AttitudeStreamer(
            peers: [target], format: format, sealers: format == .sealed ? [pairing.sealer()] : [])
        var sent = 0
        if format == .sealed {
            // A step measures a session's throughput, not its start: the first datagram of a new
            // session is held while its state is stored (40-80 ms on a VM's disk), with at most
            // `AttitudeReceiver.maximumHeldPerSender` more, and from 25,000 frames/s the rest of that
            // time's were refused as not stored (876 in one run): the step measured the store.
            try streamer.send(
                AttitudeFrame(roll: 0, pitch: 0.1, yaw: -0.2), buttons: [], now: MonotonicClock.nanoseconds())
            sent += 1
            MonotonicClock.sleep(nanoseconds: 300_000_000)
        }
        let cpuBefore = try ProcessStatistics.cpuSeconds(pid: receiver.pid)
        let total = Int(Double(rate) * stepSeconds)
        try paceBursts(rate: rate, total: total) {
            let frame = AttitudeFrame(roll: Float(sent % 1000) * 1e-3, pitch: 0.1, yaw: -0.2)
            try streamer.send(frame, buttons: [], now: MonotonicClock.nanoseconds())
            sent += 1
        }
        MonotonicClock.sleep(nanoseconds: 300_000_000)
        let cpu = try ProcessStatistics.cpuSeconds(pid: receiver.pid) - cpuBefore
        let report = try stop(receiver)
        let notDelivered = Int(streamer.peers[0].notDelivered)
        let frames = max(1, summaryValue("frames", in: report))
        if !quiet {
            print(
                "    receiver CPU \(fixed(cpu / Double(frames) * 1e6, 2)) µs per frame (\(fixed(cpu, 2)) s for \(frames) frames)"
            )
        }
        return (sent - notDelivered, max(0, summaryValue("frames", in: report)), cpu / Double(frames) * 1e6)
    }

    /// Calls `send` `total` times at `rate` per second, in bursts of rate/1000 every millisecond
    /// (busy-waiting: sleeping is too coarse at these rates).
    func paceBursts(rate: Int, total: Int, _ send: () throws -> Void) rethrows {
        let perMillisecond = max(1, rate / 1000)
        let start = MonotonicClock.nanoseconds()
        var sent = 0
        var tick: UInt64 = 0
        while sent < total {
            let due = start + tick * 1_000_000
            while MonotonicClock.nanoseconds() < due {}
            for _ in 0..<min(perMillisecond, total - sent) {
                try send()
                sent += 1
            }
            tick += 1
        }
    }

    /// The floor's CPU per frame at `rate` frames/s: the same 1 ms bursts as ``throughputStep`` (plain
    /// datagrams' size, from one socket) into `bench floor-peer`'s receiver, blocked in recvfrom.
    func floorCapacityStep(executable: String, rate: Int) throws -> Double {
        let total = Int(Double(rate) * stepSeconds)
        let (receiver, port) = try startFloorReceiver(executable, count: total)
        let cpuBefore = try ProcessStatistics.cpuSeconds(pid: receiver.pid)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let socket = try UDPSocket(family: target.family)
        var bytes = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
        try paceBursts(rate: rate, total: total) {
            withUnsafeBytes(of: MonotonicClock.nanoseconds().littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
            _ = try bytes.withUnsafeBytes { try socket.send($0, to: target) }
        }
        MonotonicClock.sleep(nanoseconds: 300_000_000)
        // Read before it is reaped (it ends once it has them all, or a second after the last).
        let cpu = try ProcessStatistics.cpuSeconds(pid: receiver.pid) - cpuBefore
        // Its summary ends "(N frames)".
        var received = total
        if let line = try floorLatencyLine(receiver), let open = line.firstRange(of: "("),
            let n = Int(line[open.upperBound...].prefix { $0.isNumber })
        {
            received = n
        }
        return cpu / Double(max(1, received)) * 1e6
    }

    /// A page of the live view, stood in for by a Python WebSocket client that reads every message
    /// as a browser would (handshake with the view's own Origin, then frames until SIGTERM, when it
    /// prints how many text messages it read).
    static let viewerScript = """
        sys, socket, signal = __import__("sys"), __import__("socket"), __import__("signal")
        port, token = int(sys.argv[1]), sys.argv[2]
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(("GET /stream?token=%s HTTP/1.1\\r\\nHost: 127.0.0.1:%d\\r\\nConnection: Upgrade\\r\\nUpgrade: websocket\\r\\n"
                   "Sec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n"
                   "Origin: http://127.0.0.1:%d\\r\\n\\r\\n" % (token, port, port)).encode())
        buf, count, upgraded = b"", 0, False
        def done(*_):
            print(count, flush=True); sys.exit(0)
        signal.signal(signal.SIGTERM, done)
        while True:
            data = s.recv(65536)
            if not data:
                done()
            buf += data
            if not upgraded:
                if b"\\r\\n\\r\\n" not in buf:
                    continue
                head, buf = buf.split(b"\\r\\n\\r\\n", 1)
                if not head.startswith(b"HTTP/1.1 101"):
                    print(-1, flush=True); sys.exit(1)
                upgraded = True
            while len(buf) >= 2:
                n, start = buf[1] & 0x7F, 2
                if n == 126:
                    if len(buf) < 4: break
                    n, start = int.from_bytes(buf[2:4], "big"), 4
                elif n == 127:
                    if len(buf) < 10: break
                    n, start = int.from_bytes(buf[2:10], "big"), 10
                if len(buf) < start + n: break
                count += (buf[0] & 0x0F) == 1
                buf = buf[start + n:]
        """

    /// The receiver's p99 latency and CPU at 1000 frames/s, with and without a live view page
    /// reading it, in `rounds` interleaved pairs (the order alternating), so both sides share the
    /// machine's state.
    public func viewComparison(rounds: Int) throws {
        let executable = try measured ?? FileSystem.executablePath()
        let pairing = try BenchPairing()
        defer { pairing.remove() }
        var without: [(Double, Double)] = []
        var with: [(Double, Double)] = []
        var messages: [Int] = []
        for round in 0..<rounds {
            for viewer in round % 2 == 0 ? [false, true] : [true, false] {
                let r = try latencyRun(
                    executable: executable, format: .sealed, pairing: pairing, viewer: viewer, quiet: true)
                if viewer {
                    with.append((r.p99, r.receiverCPU))
                    messages.append(r.viewerMessages)
                } else {
                    without.append((r.p99, r.receiverCPU))
                }
            }
        }
        print(
            "sealed stream at 1000 frames/s, receiver with and without a live view page reading it (\(rounds) interleaved rounds of \(seconds) s, medians):"
        )
        print(
            "  without the view: p99 \(fixed(median(without.map(\.0)), 1)) µs, receiver CPU \(fixed(median(without.map(\.1)), 2))% of a core"
                + "  (rounds: \(without.map { fixed($0.0, 0) }.joined(separator: ", ")) µs)")
        print(
            "  with the view:    p99 \(fixed(median(with.map(\.0)), 1)) µs, receiver CPU \(fixed(median(with.map(\.1)), 2))% of a core"
                + "  (rounds: \(with.map { fixed($0.0, 0) }.joined(separator: ", ")) µs; the page read \(messages.map(String.init).joined(separator: ", ")) messages)"
        )
    }

    /// Plain against sealed p99 latency at 1000 frames/s in `rounds` interleaved rounds (the order
    /// alternating), so that both see the machine in the same states: single rounds here swing by
    /// ±30%, more than the difference sought.
    public func sealingLatency(rounds: Int) throws {
        let executable = try measured ?? FileSystem.executablePath()
        let pairing = try BenchPairing()
        defer { pairing.remove() }
        var p99: [WireFormat: [Double]] = [:]
        for round in 0..<rounds {
            for format in round % 2 == 0 ? [WireFormat.datagram, .sealed] : [.sealed, .datagram] {
                p99[format, default: []].append(
                    try latencyRun(executable: executable, format: format, pairing: pairing, quiet: true).p99)
            }
        }
        let plain = median(p99[.datagram]!)
        let sealed = median(p99[.sealed]!)
        print("p99 send→output at 1000 frames/s, \(rounds) interleaved rounds of \(seconds) s, medians:")
        for format in [WireFormat.datagram, .sealed] {
            print(
                "  \(format.benchName): \(fixed(median(p99[format]!), 1)) µs (rounds: \(p99[format]!.map { fixed($0, 0) }.joined(separator: ", ")) µs)"
            )
        }
        let ratios = zip(p99[.sealed]!, p99[.datagram]!).map { $0 / $1 * 100 }
        print(
            "sealing cost: p99 sealed/plain = \(fixed(sealed / plain * 100, 1))% of the medians (target <= 110%); per round: "
                + ratios.map { fixed($0, 0) + "%" }.joined(separator: ", "))
    }

    /// Returns the p99 latency in µs and the receiver's CPU in % of a core (and, with `viewer`, how
    /// many messages a live view page read meanwhile).
    func latencyRun(
        executable: String, format: WireFormat, pairing: BenchPairing, viewer: Bool = false, quiet: Bool = false
    ) throws -> (p99: Double, receiverCPU: Double, viewerMessages: Int) {
        let log = FileSystem.temporaryDirectory + "/mouse3d-bench-\(FileSystem.processID).csv"
        defer { try? FileSystem.remove(log) }
        do {
            let sink = try BufferedOutput(creatingFileAt: log)
            try sink.writeLine(MotionLogWriter.header)
            // The first 10 s of the 1 kHz benchmark motion, looped by the sender.
            for point in BenchmarkMotion.script().generate().prefix(10_000) {
                try sink.writeLine(MotionLogWriter.row(point.sample))
            }
            try sink.flush()
        }
        let (receiver, port) = try startReceiver(
            executable, ["--format", "text", "--latency"] + (viewer ? ["--view", "0"] : []), format: format)
        var page: ChildProcess?
        let pageOutput = FileSystem.temporaryDirectory + "/mouse3d-bench-view-\(FileSystem.processID)"
        defer { try? FileSystem.remove(pageOutput) }
        if viewer {
            var viewPort: Int?
            var token = ""
            while viewPort == nil, let line = try receiver.readErrorLine() {
                if let r = line.firstRange(of: "view at http://127.0.0.1:") {
                    viewPort = Int(line[r.upperBound...].prefix { $0.isNumber })
                    token =
                        line.firstRange(of: "?token=").map { String(line[$0.upperBound...].prefix { $0.isHexDigit }) }
                        ?? ""
                }
            }
            guard let viewPort else { throw ActionableError("the receiver did not start its view") }
            page = try ChildProcess(
                executable: "/usr/bin/env", arguments: ["python3", "-c", Self.viewerScript, String(viewPort), token],
                standardOutputPath: pageOutput)
        }
        try pairing.setReceiverAddress("127.0.0.1:\(port)")
        let sender = try ChildProcess(
            executable: executable,
            arguments: ["send", "--source", "replay:\(log)", "--loop", "--to", "127.0.0.1:\(port)", "--quiet"]
                + format.flags)
        MonotonicClock.sleep(nanoseconds: 1_000_000_000)  // start-up (log parsing) is not the steady state
        let cpu0 = (
            try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid)
        )
        let t0 = MonotonicClock.nanoseconds()
        MonotonicClock.sleep(nanoseconds: UInt64(seconds * 1e9))
        let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
        let cpu1 = (
            try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid)
        )
        let rss = (
            try ProcessStatistics.peakResidentBytes(pid: sender.pid),
            try ProcessStatistics.peakResidentBytes(pid: receiver.pid)
        )
        try sender.terminate()
        try sender.wait()
        MonotonicClock.sleep(nanoseconds: 200_000_000)
        var pageMessages = 0
        if let page {
            try page.terminate()
            _ = try page.wait()
            pageMessages =
                Int(
                    String(decoding: (try? FileContents.read(path: pageOutput)) ?? [], as: UTF8.self)
                        .split(separator: "\n").first ?? "") ?? -1
        }
        let report = try stop(receiver)
        let frames = summaryValue("frames", in: report)
        let latency =
            report.split(separator: "\n").last { $0.contains("latency") }
            .map { String($0.split(separator: ":", maxSplits: 2).last ?? "") } ?? " n/a"
        let receiverCPU = (cpu1.1 - cpu0.1) / elapsed * 100
        let p99: Double =
            latency.firstRange(of: "p99 ").map { r in
                Double(latency[r.upperBound...].prefix { $0.isNumber || $0 == "." }) ?? 0
            } ?? 0
        if quiet { return (p99, receiverCPU, pageMessages) }
        print(
            "\(format.benchName) at 1000 frames/s for \(seconds) s (10 s 1 kHz log looped, one datagram per sample; \(frames) frames, lost \(summaryValue("lost", in: report))):"
        )
        print("  latency send→output:\(latency)")
        print(
            "  sender:   CPU \(fixed((cpu1.0 - cpu0.0) / elapsed * 100, 2))% of a core, peak RSS \(fixed(Double(rss.0) / 1_048_576, 1)) MiB"
        )
        print(
            "  receiver: CPU \(fixed((cpu1.1 - cpu0.1) / elapsed * 100, 2))% of a core, peak RSS \(fixed(Double(rss.1) / 1_048_576, 1)) MiB"
        )
        return (p99, receiverCPU, pageMessages)
    }
}

extension WireFormat {
    /// The flags `send` and `receive` take for this format.
    var flags: [String] {
        switch self {
        case .raw: ["--raw"]
        case .datagram: ["--insecure"]
        case .sealed: []
        }
    }

    /// How the benchmark names it.
    var benchName: String {
        switch self {
        case .raw: "raw 12-byte frames"
        case .datagram: "plain 40-byte datagrams"
        case .sealed:
            "sealed 68-byte datagrams (\(FrameCipher.aes256GCMAvailable ? SealingAlgorithm.aes256GCM.name : SealingAlgorithm.chacha20Poly1305.name))"
        }
    }
}

/// A machine paired with itself in a temporary configuration directory (XDG_CONFIG_HOME is pointed
/// at it for the children this benchmark starts).
final class BenchPairing {
    let base: String
    let identity: PeerIdentity
    let secret: [UInt8]
    private let home: String

    init() throws {
        home = FileSystem.temporaryDirectory + "/mouse3d-bench-home-\(FileSystem.processID)"
        base = home + "/mouse3d"
        identity = try PeerIdentity.loadOrCreate(in: base).identity
        var generator = SystemRandomNumberGenerator()
        secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        FileSystem.setEnvironment("XDG_CONFIG_HOME", home)
        try PeerStore(base: base, role: .sender).save(record(.sender, address: nil))
    }

    /// Epochs only grow, across this process's streams and the `send` children, as in real use.
    private var epoch: UInt32 = 0

    /// The AEAD a pairing on this machine agrees on.
    let algorithm: SealingAlgorithm = FrameCipher.aes256GCMAvailable ? .aes256GCM : .chacha20Poly1305

    func record(_ role: PairedPeer.Role, address: String?, epoch: UInt32 = 0) -> PairedPeer {
        var peer = PairedPeer(
            role: role, name: identity.name, publicKey: identity.publicKey, secret: secret, address: address,
            epoch: epoch, pairedAt: "bench")
        peer.algorithm = algorithm
        return peer
    }

    /// The next epoch, by the rule `send` follows, after the newest this process or a `send` child
    /// (which stores its own) used, so that all their streams' epochs keep rising.
    private func nextEpoch() -> UInt32 {
        let stored = PeerStore(base: base, role: .receiver).load().peers.map(\.epoch).max() ?? 0
        epoch = SessionEpoch.next(after: max(epoch, stored), wallNanoseconds: WallClock.nanoseconds()) ?? epoch
        return epoch
    }

    /// Points the sender's record at the receiver's port (a `send` child then uses the next epoch).
    func setReceiverAddress(_ address: String) throws {
        try PeerStore(base: base, role: .receiver).save(record(.receiver, address: address, epoch: nextEpoch()))
    }

    /// A sealer, in a new epoch, for this process's own sending.
    func sealer() -> DatagramSealer {
        _ = nextEpoch()
        return DatagramSealer(
            secret: secret, senderID: identity.id, receiverID: identity.id, epoch: epoch, algorithm: algorithm)
    }

    /// The identities of the senders made by ``additionalSenders(_:)``.
    private var additional: [[UInt8]] = []

    /// `count` more senders, each with its own identity and pairing secret, paired with this
    /// machine's receiver identity (their records written where `receive` reads them): their sealers.
    func additionalSenders(_ count: Int) throws -> [DatagramSealer] {
        var generator = SystemRandomNumberGenerator()
        let store = PeerStore(base: base, role: .sender)
        return try (0..<count).map { i in
            let sender = PeerIdentity.generate(name: "load-\(i)")
            let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var peer = PairedPeer(
                role: .sender, name: sender.name, publicKey: sender.publicKey, secret: secret, address: nil, epoch: 0,
                pairedAt: "bench")
            peer.algorithm = algorithm
            try store.save(peer)
            additional.append(sender.id)
            return DatagramSealer(
                secret: secret, senderID: sender.id, receiverID: identity.id, epoch: nextEpoch(), algorithm: algorithm)
        }
    }

    /// Forgets the senders ``additionalSenders(_:)`` made.
    func removeAdditionalSenders() {
        let store = PeerStore(base: base, role: .sender)
        for id in additional {
            try? FileSystem.remove(store.path(of: id))
            try? FileSystem.remove(store.statePath(of: id))
            try? FileSystem.remove(store.lockPath(of: id))
        }
        additional = []
    }

    func remove() {
        removeAdditionalSenders()
        for role in [PairedPeer.Role.sender, .receiver] {
            let store = PeerStore(base: base, role: role)
            try? FileSystem.remove(store.path(of: identity.id))
            try? FileSystem.remove(store.statePath(of: identity.id))
            try? FileSystem.remove(store.lockPath(of: identity.id))
            try? FileSystem.removeDirectory(store.directory)
        }
        try? FileSystem.remove(PeerIdentity.path(in: base))
        try? FileSystem.removeDirectory(base)
        try? FileSystem.removeDirectory(home)
    }
}

extension StreamBenchmark {
    /// One row of the many-senders table.
    struct LoadRow {
        var senders: Int
        var sent: Int
        var received: Int
        var lost: Int
        var latency: String
        var p99: Double
        var receiverCPU: Double
        var receiverRSS: Int
        /// The p99 of a minimal UDP receiver under the same load, and its CPU (% of a core).
        var floorP99: Double
        var floorCPU: Double
        /// The CPU of the receiver's event loop alone (epoll, recvmmsg, a write a wake-up; no work)
        /// under the same load: how much of the receiver's CPU above the floor is the loop's.
        var loopCPU: Double
        /// The p99 of that event loop alone (what the loop's design adds to the tail, before any work).
        var loopP99: Double
        /// Each round's receiver CPU over its floor's (one entry for a single run).
        var ratios: [Double] = []
        /// When frames were lost: the receiver's lines on refusals and stores, and its closing summary
        /// (what it dropped, and why).
        var summary: [String]?

        /// The rounds of one count as one row: loss summed, the largest peak RSS, every other
        /// figure the rounds' median (the latency text the median-p99 round's).
        static func median(of rounds: [LoadRow]) -> LoadRow {
            func mid(_ value: (LoadRow) -> Double) -> Double { Mouse3DBench.median(rounds.map(value)) }
            let p99 = mid(\.p99)
            var row = rounds.first { $0.p99 == p99 } ?? rounds[0]
            row.sent = rounds.reduce(0) { $0 + $1.sent }
            row.received = rounds.reduce(0) { $0 + $1.received }
            row.lost = rounds.reduce(0) { $0 + $1.lost }
            row.receiverCPU = mid(\.receiverCPU)
            row.receiverRSS = rounds.map(\.receiverRSS).max() ?? 0
            row.floorP99 = mid(\.floorP99)
            row.floorCPU = mid(\.floorCPU)
            row.loopCPU = mid(\.loopCPU)
            row.loopP99 = mid(\.loopP99)
            row.ratios = rounds.map { $0.receiverCPU / max($0.floorCPU, 0.01) }
            return row
        }
    }

    /// Many paired senders on one receiver: for each count in `counts`, that many sealed streams at
    /// 1000 frames/s each, every one with its own identity, pairing secret and UDP socket, paced
    /// with their phases spread evenly over the millisecond (as independent devices would be), into
    /// one real `mouse3d receive --print --latency` (one print stream per sender). Prints loss,
    /// send→output latency, the receiver's CPU and peak RSS, and how they grow with the count;
    /// with `rounds` above one, each count is run that many times (the receiver, then its floor and
    /// event loop under the same load) and the table gives the medians and every round's ratio.
    public func loadTable(counts: [Int], rounds: Int = 1) throws {
        let executable = try measured ?? FileSystem.executablePath()
        let pairing = try BenchPairing()
        defer { pairing.remove() }
        var rows: [LoadRow] = []
        for count in counts {
            var runs: [LoadRow] = []
            for round in 1...rounds {
                // Senders of their own each round: a sender's sealer goes on where it left off, and
                // a receiver started anew refuses what the last one stored as seen (a replay).
                let senders = try pairing.additionalSenders(count)
                defer { pairing.removeAdditionalSenders() }
                runs.append(try loadRun(executable: executable, senders: senders))
                let row = runs.last!
                print(
                    (rounds > 1 ? "round \(round) of \(rounds): " : "")
                        + "\(count) sealed senders × 1000 frames/s for \(seconds) s: sent \(row.sent), received \(row.received), lost \(row.lost); "
                        + "latency send→output:\(row.latency) (floor p99 \(fixed(row.floorP99, 0)) µs, event loop alone \(fixed(row.loopP99, 0)) µs); receiver CPU \(fixed(row.receiverCPU, 1))% of a core (floor \(fixed(row.floorCPU, 1))%, event loop alone \(fixed(row.loopCPU, 1))%), peak RSS \(fixed(Double(row.receiverRSS) / 1_048_576, 1)) MiB"
                )
                if let summary = row.summary {
                    for line in summary { print("  the receiver's \(line.trimmingPrefix(while: { $0 == " " }))") }
                }
            }
            rows.append(LoadRow.median(of: runs))
        }
        print("")
        if rounds > 1 { print("medians of \(rounds) rounds per count (loss summed, peak RSS the largest):") }
        print(
            "| senders | frames/s | lost | p99 send→output | floor p99, same load | receiver CPU | floor CPU, same load | event loop alone | receiver/floor CPU | rounds' receiver/floor | receiver peak RSS |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for row in rows {
            print(
                "| \(row.senders) | \(row.senders * 1000) | \(row.lost) of \(row.sent) | \(fixed(row.p99, 0)) µs | \(fixed(row.floorP99, 0)) µs "
                    + "| \(fixed(row.receiverCPU, 1))% | \(fixed(row.floorCPU, 1))% | \(fixed(row.loopCPU, 1))% "
                    + "| \(fixed(median(row.ratios), 2))× | \(row.ratios.map { fixed($0, 2) }.joined(separator: " ")) "
                    + "| \(fixed(Double(row.receiverRSS) / 1_048_576, 1)) MiB |"
            )
        }
        print(
            "floor: the same pacing from as many sockets into a minimal receiver blocked in recvfrom (bench floor-peer); "
                + "event loop alone: the same into the receiver's event loop doing no work (epoll, recvmmsg, one write a wake-up; bench floor-peer --role loop)"
        )
    }

    /// Calls `send(i, tick)` for each of `count` senders once per millisecond, their phases spread
    /// evenly over it, for `seconds` plus a second of warm-up; `measuring` is called when the warm-up
    /// ends. Sleeps while more than 200 µs remain, then spins (sleep alone is too coarse at 64 kHz).
    func pace(senders count: Int, seconds: Double, measuring: () throws -> Void, _ send: (Int, Int) throws -> Void)
        rethrows
    {
        let perFrame = 1_000_000 / UInt64(count)  // ns between two senders' frames
        let warmUp = 1000 * count
        let total = Int(seconds * 1000) * count + warmUp
        let start = MonotonicClock.nanoseconds() + 10_000_000
        for slot in 0..<total {
            if slot == warmUp { try measuring() }
            let due = start + UInt64(slot) * perFrame
            if due > MonotonicClock.nanoseconds() + 200_000 { MonotonicClock.sleep(untilNanoseconds: due - 100_000) }
            while MonotonicClock.nanoseconds() < due {}
            try send(slot % count, slot / count)
        }
    }

    func loadRun(executable: String, senders: [DatagramSealer]) throws -> LoadRow {
        // Latency counts after the pacing's warm-up second, as CPU does: a sealed session's first
        // frames wait for its state to be stored (64 stores at once at 64 senders).
        let (receiver, port) = try startReceiver(
            executable, ["--format", "text", "--latency", "--latency-warm-up", "1"], format: .sealed)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let streamers = try senders.map { try AttitudeStreamer(peers: [target], format: .sealed, sealers: [$0]) }
        var cpu0 = 0.0
        var t0: UInt64 = 0
        var sent = 0
        try pace(
            senders: streamers.count, seconds: seconds,
            measuring: {
                cpu0 = try ProcessStatistics.cpuSeconds(pid: receiver.pid)
                t0 = MonotonicClock.nanoseconds()
            }
        ) { i, tick in
            let ramp = Float(tick % 2000) * 0.0003 - 0.3  // a slow sweep of ±0.3 rad
            let frame = AttitudeFrame(roll: ramp, pitch: -ramp * 0.5, yaw: Float(i) * 0.01)
            try streamers[i].send(frame, buttons: [], now: MonotonicClock.nanoseconds())
            sent += 1
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
        let cpu = try ProcessStatistics.cpuSeconds(pid: receiver.pid) - cpu0
        MonotonicClock.sleep(nanoseconds: 300_000_000)
        let rss = try ProcessStatistics.peakResidentBytes(pid: receiver.pid)
        let report = try stop(receiver)
        let notDelivered = streamers.reduce(0) { $0 + Int($1.peers[0].notDelivered) }
        let latency =
            report.split(separator: "\n").last { $0.contains("latency") }
            .map { String($0.split(separator: ":", maxSplits: 2).last ?? "") } ?? " n/a"
        let received = max(0, summaryValue("frames", in: report))
        let floor = try floorLoad(executable: executable, senders: streamers.count)
        // The bench's own build (an older one measured with --executable may not have the role).
        let loop = try floorLoad(executable: try FileSystem.executablePath(), senders: streamers.count, role: "loop")
        return LoadRow(
            senders: streamers.count, sent: sent - notDelivered, received: received,
            lost: sent - notDelivered - received, latency: latency,
            p99: Self.p99(in: latency), receiverCPU: cpu / elapsed * 100, receiverRSS: rss,
            floorP99: floor.p99, floorCPU: floor.cpu, loopCPU: loop.cpu, loopP99: loop.p99,
            summary: sent - notDelivered - received > 0 ? Self.lossLines(report) : nil)
    }

    /// What a receiver that lost frames said about it: its lines on refusals and stores (when and
    /// why: a store that failed, datagrams held past their bound), at most 20, and its summary.
    static func lossLines(_ report: String) -> [String] {
        let lines = report.split(separator: "\n").map(String.init)
        let said = lines.filter {
            !$0.contains("summary:")
                && ($0.contains("refused") || $0.contains("cannot store") || $0.contains("not stored"))
        }
        return Array(said.prefix(20)) + (lines.last { $0.contains("summary:") }.map { [$0] } ?? [])
    }

    /// The machine's floor under the same load: the same pacing from as many sockets, each datagram
    /// stamped with the clock just before sendto, into a minimal receiver blocked in recvfrom: its p99
    /// and its CPU (% of a core) after the warm-up, as the receiver's are measured.
    /// `role` "loop": the receiver's event loop doing no work instead (``FloorPeer/receiveOnLoop``).
    func floorLoad(executable: String, senders count: Int, role: String = "receiver") throws -> (
        p99: Double, cpu: Double
    ) {
        let total = Int(seconds * 1000) * count + 1000 * count
        let (receiver, port) = try startFloorReceiver(executable, count: total, warmUpSeconds: 1, role: role)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        let sockets = try (0..<count).map { _ in try UDPSocket(family: target.family) }
        var bytes = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
        var cpu0 = 0.0
        var t0: UInt64 = 0
        try pace(
            senders: count, seconds: seconds,
            measuring: {
                cpu0 = try ProcessStatistics.cpuSeconds(pid: receiver.pid)
                t0 = MonotonicClock.nanoseconds()
            }
        ) { i, _ in
            withUnsafeBytes(of: MonotonicClock.nanoseconds().littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
            _ = try bytes.withUnsafeBytes { try sockets[i].send($0, to: target) }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
        // Read before it is reaped: it stops after `total` datagrams, or a second after the last if
        // some were lost.
        let cpu = try ProcessStatistics.cpuSeconds(pid: receiver.pid) - cpu0
        return (Self.p99(in: try floorLatencyLine(receiver) ?? ""), cpu / elapsed * 100)
    }

    /// Starts `bench floor-peer`'s receiver for `count` datagrams (latency counted from `warmUpSeconds`
    /// after the first); returns it and its loopback port.
    func startFloorReceiver(_ executable: String, count: Int, warmUpSeconds: Int? = nil, role: String = "receiver")
        throws
        -> (ChildProcess, Int)
    {
        let receiver = try ChildProcess(
            executable: executable,
            arguments: ["bench", "floor-peer", "--role", role, "--count", "\(count)"]
                + (warmUpSeconds.map { ["--warm-up", "\($0)"] } ?? []),
            standardOutputPath: "/dev/null")
        guard let port = try loopbackPort(announcedBy: receiver) else {
            throw ActionableError("the floor receiver did not start")
        }
        return (receiver, port)
    }

    /// Waits for a floor receiver to end (after its count, or a second after its last datagram if some
    /// were lost) and returns its latency line.
    func floorLatencyLine(_ receiver: ChildProcess) throws -> String? {
        let report = try receiver.readAllErrors()
        try receiver.wait()
        return report.split(separator: "\n").last { $0.contains("latency") }.map(String.init)
    }

    static func p99(in latency: String) -> Double {
        latency.firstRange(of: "p99 ").map { r in
            Double(latency[r.upperBound...].prefix { $0.isNumber || $0 == "." }) ?? 0
        } ?? 0
    }
}

/// The middle value of `values` (the upper of the two middle ones for an even count), 0 if empty.
func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
