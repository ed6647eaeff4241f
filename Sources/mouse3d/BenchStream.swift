import ArgumentParser
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d bench stream`: streaming throughput, latency, CPU and memory on loopback.
    struct BenchStream: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stream",
            abstract: "Streaming on loopback: frames/s without loss, and latency, CPU and memory at 1000 frames/s.",
            discussion: """
                Throughput: this process sends datagrams at rising rates (in 1 ms bursts) to a real \
                `mouse3d receive --print --format jsonl` writing to /dev/null; a step passes when the receiver \
                counts every frame sent. Latency: real `mouse3d send` (a 1 kHz scripted log, one datagram per \
                sample) and `mouse3d receive --print --latency` processes; the receiver records, in an HDR \
                histogram, the time from the sender's clock reading just before sendto to its own after the \
                output write. CPU is user+system time from /proc over the run; memory is peak RSS (VmHWM).
                """)

        @Option(help: "Seconds per throughput step.")
        var stepSeconds: Double = 2

        @Option(help: "Seconds of the 1000 frames/s run.")
        var seconds: Double = 10

        @Option(help: "Throughput rates to try, frames/s, comma-separated, ascending.")
        var rates: String = "25000,50000,100000,150000,200000,300000"

        func validate() throws {
            guard stepSeconds > 0, stepSeconds <= 60, seconds >= 2, seconds <= 600 else {
                throw ValidationError("--step-seconds must be in (0, 60] and --seconds in [2, 600].")
            }
            guard !rateList.isEmpty else { throw ValidationError("--rates must list positive integers, e.g. 50000,100000.") }
        }

        var rateList: [Int] { rates.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }.filter { $0 > 0 } }

        func run() throws {
            let executable = try FileSystem.executablePath()
            print("throughput (receiver printing jsonl to /dev/null, \(stepSeconds) s per step):")
            var best = 0
            for rate in rateList {
                let (sent, received) = try throughputStep(executable: executable, rate: rate)
                let ok = sent == received
                print("  \(rate) frames/s: sent \(sent), received \(received), lost \(sent - received)\(ok ? "" : "  <- loss")")
                if ok { best = rate } else { break }
            }
            print("  sustained without loss: \(best) frames/s (highest step tried: \(rateList.last!))")
            try latencyRun(executable: executable)
            try floorRun(executable: executable)
        }

        /// The same measurement for the least a 1 kHz UDP pair can do on this machine: a sender that
        /// sleeps 1 ms (clock_nanosleep) then calls sendto, and a receiver blocked in recvfrom.
        func floorRun(executable: String) throws {
            let count = Int(seconds * 1000) + 1000
            let receiver = try ChildProcess(
                executable: executable, arguments: ["bench", "floor-peer", "--role", "receiver", "--count", "\(count)"])
            guard let port = try loopbackPort(announcedBy: receiver) else { throw CommandFailure("the floor receiver did not start") }
            let sender = try ChildProcess(
                executable: executable,
                arguments: ["bench", "floor-peer", "--role", "sender", "--port", "\(port)", "--count", "\(count + 100)"])
            MonotonicClock.sleep(nanoseconds: 1_000_000_000)
            let cpu0 = (try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid))
            let t0 = MonotonicClock.nanoseconds()
            MonotonicClock.sleep(nanoseconds: UInt64((seconds - 0.5) * 1e9))
            let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
            let cpu1 = (try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid))
            let report = try receiver.readAllErrors()
            try receiver.wait()
            try sender.send(signal: SIGTERM)
            try sender.wait()
            let latency = report.split(separator: "\n").last { $0.contains("latency") }
                .map { String($0.split(separator: ":", maxSplits: 2).last ?? "") } ?? " n/a"
            print("machine floor at 1000 frames/s (minimal sleep+sendto sender, blocking recvfrom receiver):")
            print("  latency send→receive:\(latency)")
            print("  sender:   CPU \(fixed((cpu1.0 - cpu0.0) / elapsed * 100, 2))% of a core")
            print("  receiver: CPU \(fixed((cpu1.1 - cpu0.1) / elapsed * 100, 2))% of a core")
        }

        /// Starts a receiver on an ephemeral loopback port; returns it with the port it reported.
        func startReceiver(_ executable: String, _ extra: [String]) throws -> (ChildProcess, Int) {
            let receiver = try ChildProcess(
                executable: executable, arguments: ["receive", "--insecure", "--listen", "127.0.0.1:0", "--print"] + extra,
                standardOutputPath: "/dev/null")
            guard let port = try loopbackPort(announcedBy: receiver) else {
                throw CommandFailure("the receiver did not start: \(try receiver.readAllErrors())")
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
            try receiver.send(signal: SIGTERM)
            let report = try receiver.readAllErrors()
            try receiver.wait()
            return report
        }

        func summaryValue(_ name: String, in text: String) -> Int {
            guard let line = text.split(separator: "\n").last(where: { $0.contains("summary:") }),
                  let r = line.firstRange(of: "\(name) ") else { return -1 }
            return Int(line[r.upperBound...].prefix { $0.isNumber }) ?? -1
        }

        func throughputStep(executable: String, rate: Int) throws -> (sent: Int, received: Int) {
            let (receiver, port) = try startReceiver(executable, ["--format", "jsonl"])
            let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
            let streamer = try AttitudeStreamer(peers: [target], format: .datagram)
            let total = Int(Double(rate) * stepSeconds)
            let perMillisecond = max(1, rate / 1000)
            let start = MonotonicClock.nanoseconds()
            var sent = 0
            var tick: UInt64 = 0
            while sent < total {
                let due = start + tick * 1_000_000
                while MonotonicClock.nanoseconds() < due {}  // busy-wait: sleeping is too coarse at these rates
                for _ in 0..<min(perMillisecond, total - sent) {
                    let frame = AttitudeFrame(roll: Float(sent % 1000) * 1e-3, pitch: 0.1, yaw: -0.2)
                    try streamer.send(frame, buttons: [], now: MonotonicClock.nanoseconds())
                    sent += 1
                }
                tick += 1
            }
            MonotonicClock.sleep(nanoseconds: 300_000_000)
            let report = try stop(receiver)
            let notDelivered = Int(streamer.peers[0].notDelivered)
            return (sent - notDelivered, max(0, summaryValue("frames", in: report)))
        }

        func latencyRun(executable: String) throws {
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
            let (receiver, port) = try startReceiver(executable, ["--format", "text", "--latency"])
            let sender = try ChildProcess(
                executable: executable,
                arguments: ["send", "--insecure", "--source", "replay:\(log)", "--loop", "--to", "127.0.0.1:\(port)", "--quiet"])
            MonotonicClock.sleep(nanoseconds: 1_000_000_000)  // start-up (log parsing) is not the steady state
            let cpu0 = (try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid))
            let t0 = MonotonicClock.nanoseconds()
            MonotonicClock.sleep(nanoseconds: UInt64(seconds * 1e9))
            let elapsed = Double(MonotonicClock.nanoseconds() - t0) * 1e-9
            let cpu1 = (try ProcessStatistics.cpuSeconds(pid: sender.pid), try ProcessStatistics.cpuSeconds(pid: receiver.pid))
            let rss = (try ProcessStatistics.peakResidentBytes(pid: sender.pid), try ProcessStatistics.peakResidentBytes(pid: receiver.pid))
            try sender.send(signal: SIGTERM)
            try sender.wait()
            MonotonicClock.sleep(nanoseconds: 200_000_000)
            let report = try stop(receiver)
            let frames = summaryValue("frames", in: report)
            let latency = report.split(separator: "\n").last { $0.contains("latency") }
                .map { String($0.split(separator: ":", maxSplits: 2).last ?? "") } ?? " n/a"
            print("at 1000 frames/s for \(seconds) s (10 s 1 kHz log looped, one datagram per sample; \(frames) frames, lost \(summaryValue("lost", in: report))):")
            print("  latency send→output:\(latency)")
            print("  sender:   CPU \(fixed((cpu1.0 - cpu0.0) / elapsed * 100, 2))% of a core, peak RSS \(fixed(Double(rss.0) / 1_048_576, 1)) MiB")
            print("  receiver: CPU \(fixed((cpu1.1 - cpu0.1) / elapsed * 100, 2))% of a core, peak RSS \(fixed(Double(rss.1) / 1_048_576, 1)) MiB")
        }
    }
}
