import ArgumentParser
import Mouse3DBench
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d bench stream`: streaming throughput, latency, CPU and memory on loopback.
    struct BenchStream: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stream",
            abstract:
                "Streaming on loopback: frames/s without loss, and latency, CPU and memory at 1000 frames/s; sealed against unsealed.",
            discussion: """
                Throughput: this process sends datagrams at rising rates (in 1 ms bursts) to a real \
                `mouse3d receive --print --format jsonl` writing to /dev/null; a step passes when the receiver \
                counts every frame sent (a sealed step starts after one frame and 300 ms, its session's \
                state stored: a new session's first datagrams are held for that store, at most \
                \(AttitudeReceiver.maximumHeldPerSender)). Latency: real `mouse3d send` (a 1 kHz scripted \
                log, one datagram per \
                sample) and `mouse3d receive --print --latency` processes; the receiver records, in an HDR \
                histogram, the time from the sender's clock reading just before sendto to its own after the \
                output write. CPU is user+system time over the run, from the process's CPU clock (the \
                scheduler's count in nanoseconds); memory is peak RSS (VmHWM). \
                Each is measured for bare 12-byte frames (raw), plain datagrams and sealed datagrams \
                (a pairing made in a temporary configuration directory); raw frames carry no send time, so \
                the latency of sealing is compared with plain datagrams.
                """)

        @Option(help: "Seconds per throughput step.")
        var stepSeconds: Double = 2

        @Option(help: "Seconds of the 1000 frames/s run.")
        var seconds: Double = 10

        @Option(help: "Throughput rates to try, frames/s, comma-separated, ascending.")
        var rates: String = "25000,50000,100000,150000,200000,300000"

        @Option(
            help:
                "Rounds of the receiver-CPU-per-frame measurement (each format once per round, 2 s each at 50,000 frames/s)."
        )
        var capacityRounds: Int = 5

        @Option(help: "Wire formats to measure, comma-separated: raw, plain, sealed.")
        var formats: String = "raw,plain,sealed"

        @Option(
            help:
                "Instead of the above: the sealed receiver's p99 latency and CPU at 1000 frames/s with and without a live view page reading it (python3 stands in for the browser), in this many interleaved rounds of --seconds."
        )
        var withView: Int?

        @Option(
            help:
                "Instead of the above: this many paired senders (comma-separated counts, e.g. 1,8,64), each a sealed 1000 frames/s stream with its own identity and socket, into one receiver: loss, p99 send→output, receiver CPU and RSS per count, for --seconds each."
        )
        var senders: String?

        @Option(
            help:
                "With --senders: rounds per count, each a receiver run and its floor and event-loop runs under the same load, one after the other; the table gives each column's median and every round's receiver/floor ratio (a single run's floor moves by a quarter from run to run)."
        )
        var sendersRounds: Int = 1

        @Option(
            help:
                "Instead of the above: plain against sealed p99 latency at 1000 frames/s in this many interleaved rounds of --seconds (medians)."
        )
        var latencyRounds: Int?

        @Option(
            help: ArgumentHelp(
                "The mouse3d whose send, receive and floor peer are measured (default: this one), e.g. an older build.",
                valueName: "path", visibility: .hidden))
        var executable: String?

        var senderCounts: [Int] { (senders ?? "").split(separator: ",").compactMap { Int($0.filter { $0 != " " }) } }

        var formatList: [WireFormat] {
            formats.split(separator: ",").compactMap { name -> WireFormat? in
                switch name.filter({ $0 != " " }) {
                case "raw": .raw
                case "plain": .datagram
                case "sealed": .sealed
                default: nil
                }
            }
        }

        func validate() throws {
            guard capacityRounds >= 1 && capacityRounds <= 50 else {
                throw ValidationError("--capacity-rounds must be between 1 and 50.")
            }
            guard !formatList.isEmpty, formatList.count == formats.split(separator: ",").count else {
                throw ValidationError("--formats lists raw, plain and/or sealed, comma-separated.")
            }
            guard stepSeconds > 0, stepSeconds <= 60, seconds >= 2, seconds <= 600 else {
                throw ValidationError("--step-seconds must be in (0, 60] and --seconds in [2, 600].")
            }
            if senders != nil {
                guard !senderCounts.isEmpty, senderCounts.count == senders!.split(separator: ",").count,
                    senderCounts.allSatisfy({ (1...256).contains($0) })
                else {
                    throw ValidationError("--senders lists counts from 1 to 256, comma-separated, e.g. 1,8,64.")
                }
            }
            guard (1...20).contains(sendersRounds) else {
                throw ValidationError("--senders-rounds takes 1 to 20 rounds.")
            }
            if sendersRounds != 1 && senders == nil {
                throw ValidationError("--senders-rounds goes with --senders (e.g. --senders 64 --senders-rounds 5).")
            }
            if let executable, !FileSystem.isExecutable(executable) {
                throw ValidationError("--executable: '\(executable)' is not an executable file.")
            }
            guard !rateList.isEmpty else {
                throw ValidationError("--rates must list positive integers, e.g. 50000,100000.")
            }
        }

        var rateList: [Int] {
            rates.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }.filter { $0 > 0 }
        }

        func run() throws {
            func benchmark(_ formats: [WireFormat]) -> StreamBenchmark {
                var benchmark = StreamBenchmark(
                    stepSeconds: stepSeconds, seconds: seconds, rates: rateList, capacityRounds: capacityRounds,
                    formats: formats)
                benchmark.measured = executable
                return benchmark
            }
            if let latencyRounds {
                guard latencyRounds >= 1 && latencyRounds <= 50 else {
                    throw ValidationError("--latency-rounds takes 1 to 50 rounds.")
                }
                try benchmark([.sealed]).sealingLatency(rounds: latencyRounds)
            } else if senders != nil {
                try benchmark([.sealed]).loadTable(counts: senderCounts, rounds: sendersRounds)
            } else if let withView {
                guard withView >= 1 && withView <= 20 else {
                    throw ValidationError("--with-view takes 1 to 20 rounds.")
                }
                try benchmark([.sealed]).viewComparison(rounds: withView)
            } else {
                try benchmark(formatList).run()
            }
        }
    }
}
