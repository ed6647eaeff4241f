import ArgumentParser
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d send`: fuse motion and stream attitudes to peers.
    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuse motion and stream attitude frames to receivers over UDP.",
            discussion: """
                Every sample is fused. Without --rate one datagram goes out per fused sample; with --rate \
                the latest attitude goes out at that rate. A peer that is not listening or a network that \
                goes away does not stop the stream. SIGINT or SIGTERM ends it cleanly.
                """)

        @Option(help: "Motion source: replay:LOG.csv (a recorded log).")
        var source: SourceSpecifier

        @Option(name: .customLong("to"), help: "A receiver, HOST[:PORT] or [IPv6][:PORT]; repeat for up to 8 (default port \(StreamDefaults.port)).")
        var peers: [String] = []

        @Flag(help: "Replay the log over and over until interrupted.")
        var loop = false

        @Option(help: "Replay speed: a factor of real time (1 = as recorded) or 'max'.")
        var speed: ReplaySpeed = .factor(1)

        @Option(help: "Send the latest attitude at this rate in Hz instead of once per sample.")
        var rate: Double?

        @Flag(help: "Send bare 12-byte frames (roll, pitch, yaw) without the datagram header.")
        var raw = false

        @Flag(help: "Print nothing but errors.")
        var quiet = false

        @OptionGroup var filter: FilterOptions

        func validate() throws {
            guard !peers.isEmpty else {
                throw ValidationError("Give at least one receiver with --to HOST[:PORT].")
            }
            guard peers.count <= StreamDefaults.maximumPeers else {
                throw ValidationError("At most \(StreamDefaults.maximumPeers) receivers (--to) at once; \(peers.count) were given.")
            }
            if let rate, !(rate.isFinite && rate > 0 && rate <= 100_000) {
                throw ValidationError("--rate must be between 0 and 100000 Hz.")
            }
        }

        func run() throws {
            let signals = try SignalDescriptor(signals: [SIGINT, SIGTERM])
            let addresses = try peers.map { text in
                do {
                    return try SocketAddress.resolve(text, defaultPort: StreamDefaults.port, passive: false)
                } catch {
                    throw CommandFailure("bad receiver address \(error)")
                }
            }
            guard case .replay(let path) = source else { return }
            let log = try loadMotionLog(path: path)
            let speedFactor: Double? = if case .factor(let f) = speed { f } else { nil }
            var player = MotionLogPlayer(samples: log.samples, loops: loop, speed: speedFactor)
            var estimator = AttitudeEstimator(parameters: filter.parameters)
            let streamer = try AttitudeStreamer(peers: addresses, format: raw ? .raw : .datagram)
            let diagnostics = Diagnostics(quiet: quiet)
            diagnostics.say("sending \(raw ? "raw frames" : "stream \(String(streamer.streamID, radix: 16))") from \(source) to \(addresses.map(\.description).joined(separator: ", "))")

            let poll = PollSet([signals.descriptor])
            let start = MonotonicClock.nanoseconds()
            let sendPeriod = rate.map { UInt64(1e9 / $0) }
            var nextSend = start
            var unsent = false  // in --rate mode: fused since the last send
            func send() throws {
                unsent = false
                for event in try streamer.send(AttitudeFrame(estimator.attitude), buttons: [], now: MonotonicClock.nanoseconds()) {
                    switch event {
                    case .failing(let peer, let reason): diagnostics.say("\(peer): not delivered (\(reason)); still sending")
                    case .recovered(let peer): diagnostics.say("\(peer): delivering again")
                    }
                }
            }
            running: while true {
                // Fuse whatever is due (in bounded batches, so signals are seen at maximum speed).
                var batch = 0
                while batch < 256, let due = player.nextDueNanoseconds(), start + due <= MonotonicClock.nanoseconds() {
                    estimator.update(player.peek()!)
                    player.advance()
                    batch += 1
                    if sendPeriod == nil { try send() } else { unsent = true }
                }
                let now = MonotonicClock.nanoseconds()
                if let period = sendPeriod, unsent, now >= nextSend {
                    try send()
                    nextSend += period
                    if nextSend < now { nextSend = now + period }  // fell behind: do not burst
                }
                guard let due = player.nextDueNanoseconds() else {
                    if unsent { try send() }  // the final attitude of the log
                    break
                }
                let wake = min(start + due, sendPeriod == nil || !unsent ? UInt64.max : nextSend)
                let timeout = wake > now ? wake - now : 0
                if try poll.wait(timeoutNanoseconds: timeout) {
                    for signal in try signals.pending() {
                        diagnostics.say("stopping on \(signal == SIGINT ? "SIGINT" : "SIGTERM")")
                        break running
                    }
                }
            }
            for peer in streamer.peers {
                diagnostics.say("\(peer.address): sent \(peer.sent), not delivered \(peer.notDelivered)")
            }
        }
    }
}

/// Messages for the user on standard error, unless quiet.
struct Diagnostics {
    var quiet: Bool

    func say(_ message: String) {
        guard !quiet else { return }
        StandardError.write("mouse3d: \(message)\n")
    }
}
