import ArgumentParser
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d receive`: take attitude streams from senders and print them.
    struct Receive: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Receive attitude streams over UDP and print them or drive virtual input devices.",
            discussion: """
                By default only sealed frames from paired senders are accepted (see `mouse3d pair`); \
                anything else is refused, counted, and who tried is reported. --insecure (plain datagrams) \
                and --raw (bare 12-byte frames) accept unauthenticated input, listen on loopback unless \
                --listen is given, and warn. Datagrams that are not valid frames (wrong size or version, NaN, infinite or out-of-range \
                angles) are dropped and counted; a frame older than the newest of its stream is dropped \
                (latest wins). A sender silent for 500 ms is reported lost, and back when frames resume. \
                A summary goes to standard error at the end (SIGINT or SIGTERM).
                """)

        @Option(help: "Address to listen on, [ADDR]:PORT (default 0.0.0.0:\(StreamDefaults.port); with --insecure or --raw 127.0.0.1:\(StreamDefaults.port)).")
        var listen: String?

        @Flag(help: "Print each frame on standard output (the default output unless receive.output says otherwise).")
        var print = false

        @Option(help: "Drive a virtual input device per sender: pointer (gyro mouse), joystick (absolute pose) or spacemouse (6-DoF rates for spacenavd).")
        var uinput: UinputMode?

        @OptionGroup var pointer: PointerOptions

        @Option(help: "Print format: text (degrees) or jsonl (radians; keys sender, stream, seq, time, roll, pitch, yaw, buttons). Default: receive.format, text.")
        var format: PrintFormat?

        @Flag(inversion: .prefixedNo, help: "Print per-sender statistics to standard error once a second (default: receive.stats, off).")
        var stats: Bool?

        @Flag(help: "Accept bare 12-byte frames (roll, pitch, yaw) from anyone instead of sealed datagrams (unauthenticated).")
        var raw = false

        @Flag(help: "Accept plain, unauthenticated datagrams from anyone instead of sealed ones from paired senders.")
        var insecure = false

        @Flag(help: "Measure the latency from each frame's send call to its output (same machine only) and report it at the end.")
        var latency = false

        @Flag(help: "Print nothing on standard error but errors.")
        var quiet = false

        func validate() throws {
            if raw && insecure { throw ValidationError("Choose --raw (bare frames) or --insecure (plain datagrams), not both.") }
        }

        /// What is accepted.
        var wireFormat: WireFormat { raw ? .raw : insecure ? .datagram : .sealed }

        func run() throws {
            let signals = try SignalDescriptor(signals: [SIGINT, SIGTERM, SIGHUP])
            var flags = ConfigurationLayer()
            try EffectiveConfiguration.flags {
                try pointer.addFlags(to: &flags)
                if let format { try flags.set("receive.format", .text(format.rawValue), origin: .flag("--format")) }
                if let stats { try flags.set("receive.stats", .boolean(stats), origin: .flag("--[no-]stats")) }
                if let uinput { try flags.set("receive.output", .text(uinput.rawValue), origin: .flag("--uinput")) }
            }
            var configuration = try EffectiveConfiguration.load(flags: flags)
            var settings = try ReceiveSettings(configuration, printFlag: print, uinputFlag: uinput)
            let address: SocketAddress
            let port = UInt16(configuration.integer("network.port"))
            // Unauthenticated modes listen on loopback unless an address is given (by flag or in a file).
            let configuredListen = configuration.origin("receive.listen") == .builtIn && wireFormat != .sealed
                ? "127.0.0.1" : (configuration.text("receive.listen") ?? "0.0.0.0")
            let listenText = listen ?? SocketAddress.text(host: configuredListen, port: port)
            do {
                address = try SocketAddress.resolve(listenText, defaultPort: port, passive: false)
            } catch {
                throw CommandFailure("bad --listen address \(error)")
            }
            let diagnostics = Diagnostics(quiet: quiet)
            let pairings = wireFormat == .sealed ? try ReceivePairings(base: FileSystem.userConfigurationDirectory, diagnostics: diagnostics) : nil
            let receiver: AttitudeReceiver
            do {
                receiver = try AttitudeReceiver(listeningOn: address, format: wireFormat, opener: pairings?.opener)
            } catch {
                throw CommandFailure("cannot listen: \(error)")
            }
            switch wireFormat {
            case .sealed:
                diagnostics.say("listening on \(receiver.localAddress) for sealed frames from paired senders")
            case .datagram, .raw:
                diagnostics.say("listening on \(receiver.localAddress) for \(raw ? "raw 12-byte frames" : "plain datagrams")")
                diagnostics.say("warning: --\(raw ? "raw" : "insecure"): frames are not authenticated; anyone who can reach "
                    + "\(receiver.localAddress)\(receiver.localAddress.isLoopback ? " (any local user)" : "") can move your pointer and click")
            }
            let announcer = configuration.boolean("network.discovery")
                ? ReceiveAnnouncer(
                    ReceiverAnnouncement(
                        name: pairings?.identity.name ?? FileSystem.hostName, fingerprint: pairings?.identity.fingerprint ?? "",
                        wire: wireFormat.announced, outputs: settings.announcedOutputs,
                        pairingPort: UInt16(configuration.integer("network.pairing_port"))),
                    port: receiver.localAddress.port, loopbackOnly: receiver.localAddress.isLoopback, diagnostics: diagnostics)
                : nil
            let output = BufferedOutput()
            let outputs = settings.uinput.map { UinputOutputs(mode: $0, mapping: settings.mapping, diagnostics: diagnostics) }
            defer { outputs?.releaseAll() }
            var recorder = LatencyRecorder()
            var batchSent: [UInt64] = []
            var statistics = ReceiveStatistics()
            var names = StreamNames()
            let second: UInt64 = 1_000_000_000
            var nextStats = MonotonicClock.nanoseconds() + second
            let poll = PollSet([receiver.descriptor, signals.descriptor, pairings?.watcher.descriptor ?? -1, announcer?.discovery.descriptor ?? -1])

            func handle(_ event: AttitudeReceiver.Event) throws {
                switch event {
                case .frame(let f):
                    try outputs?.apply(f)
                    if settings.print { try output.writeLine(settings.format.line(f, names: &names)) }
                    if latency, let sent = f.sentNanoseconds { batchSent.append(sent) }
                case .streamStarted(let key): diagnostics.say("\(key): new stream")
                case .streamLost(let key):
                    diagnostics.say("\(key): lost (no frames for 500 ms)")
                    outputs?.streamLost(key)
                case .streamResumed(let key): diagnostics.say("\(key): back")
                case .refused(let source, let count, let reason, let claimed):
                    diagnostics.say(pairings?.describeRefusal(source: source, count: count, reason: reason, claimed: claimed)
                        ?? "refused \(count) datagrams from \(source): \(reason)")
                case .sessionStarted(let peer): pairings?.sessionStarted(peer)
                }
            }

            running: while true {
                let now = MonotonicClock.nanoseconds()
                var wake = receiver.nextSilenceDeadline.map { $0 + 1 }
                if settings.stats { wake = min(wake ?? nextStats, nextStats) }
                try poll.wait(timeoutNanoseconds: wake.map { $0 > now ? $0 - now : 0 })
                if poll.isReadable(0) {
                    // Everything waiting is read (until the socket would block), then written at once.
                    try receiver.drain(handle)
                    try output.flush()
                    if latency {
                        let done = MonotonicClock.nanoseconds()
                        for sent in batchSent { recorder.record(nanoseconds: done &- sent) }
                        batchSent.removeAll(keepingCapacity: true)
                    }
                }
                if pairings != nil && poll.isReadable(2) { try pairings?.reload() }
                if poll.isReadable(3) { announcer?.handleEvents() }
                if poll.isReadable(1) {
                    var stop: Int32?
                    for signal in try signals.pending() {
                        if signal == SIGHUP {
                            reload(&configuration, &settings, flags: flags, outputs: outputs, diagnostics: diagnostics)
                        } else {
                            stop = signal
                        }
                    }
                    if let stop {
                        diagnostics.say("stopping on \(stop == SIGINT ? "SIGINT" : "SIGTERM")")
                        break running
                    }
                }
                let later = MonotonicClock.nanoseconds()
                try receiver.checkSilence(now: later, handle)
                pairings?.saveMarks(now: later)
                if settings.stats && later >= nextStats {
                    for line in statistics.lines(receiver.counters, intervalNanoseconds: later - (nextStats - second)) {
                        diagnostics.say(line)
                    }
                    nextStats += second
                    if nextStats <= later { nextStats = later + second }
                }
            }
            try output.flush()
            outputs?.releaseAll()
            pairings?.saveMarks(force: true)
            let t = receiver.totals
            var summary = "summary: frames \(t.frames), dropped \(t.dropped), lost \(t.lost), reordered \(t.reordered), senders \(receiver.counters.count)"
            if !receiver.dropReasons.isEmpty {
                summary += " (dropped: " + receiver.dropReasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
            }
            diagnostics.say(summary)
            if latency { diagnostics.say("latency send→output: \(recorder.summary)") }
        }
    }
}

extension Mouse3D.Receive {
    /// On SIGHUP: rereads the configuration; if it loads, the pointer settings, print format and
    /// statistics switch to it at once (the listening address, port and output mode at the next
    /// start); if not, the running configuration stays and the problem is reported.
    func reload(
        _ configuration: inout Configuration, _ settings: inout ReceiveSettings, flags: ConfigurationLayer, outputs: UinputOutputs?,
        diagnostics: Diagnostics
    ) {
        let next: Configuration
        let nextSettings: ReceiveSettings
        do {
            next = try EffectiveConfiguration.load(flags: flags)
            nextSettings = try ReceiveSettings(next, printFlag: print, uinputFlag: uinput)
        } catch {
            diagnostics.say("SIGHUP: configuration not reloaded, the running one stays: \(error)")
            return
        }
        let changed = zip(configuration.listing, next.listing).filter { $0 != $1 }.map(\.1)
        var later: [String] = []
        if nextSettings.uinput != settings.uinput || nextSettings.print != settings.print { later.append("receive.output") }
        for key in ["network.port", "receive.listen"] where next[key] != configuration[key] { later.append(key) }
        settings.mapping = nextSettings.mapping
        settings.format = nextSettings.format
        settings.stats = nextSettings.stats
        outputs?.update(mapping: settings.mapping)
        configuration = next
        diagnostics.say(changed.isEmpty ? "SIGHUP: configuration reread, nothing changed"
            : "SIGHUP: configuration reloaded: " + changed.joined(separator: "; ")
                + (later.isEmpty ? "" : " (\(later.joined(separator: ", ")) at the next start)"))
    }
}

/// What `receive` does with frames, from its configuration and flags.
struct ReceiveSettings {
    var print: Bool
    var uinput: UinputMode?
    var format: PrintFormat
    var stats: Bool
    var mapping: PointerMapping

    init(_ c: Configuration, printFlag: Bool, uinputFlag: UinputMode?) throws {
        let output = c.text("receive.output") ?? "print"
        if printFlag || uinputFlag != nil {
            print = printFlag
            uinput = uinputFlag
        } else {
            print = output == "print"
            uinput = UinputMode(rawValue: output)
        }
        format = PrintFormat(rawValue: c.text("receive.format") ?? "text") ?? .text
        stats = c.boolean("receive.stats")
        mapping = try PointerOptions.mapping(c)
    }
}

extension ReceiveSettings {
    /// The outputs a receiver announces.
    var announcedOutputs: [String] { (print ? ["print"] : []) + (uinput.map { [$0.rawValue] } ?? []) }
}

extension WireFormat {
    /// What a receiver taking this format announces it accepts.
    var announced: String {
        switch self {
        case .sealed: "sealed"
        case .datagram: "plain"
        case .raw: "raw"
        }
    }
}

/// How `receive --print` shows a frame.
enum PrintFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl

    func line(_ f: AttitudeReceiver.ReceivedFrame, names: inout StreamNames) -> String {
        let wall = WallClock.nanoseconds()
        names.updateSecond(wall)
        let name = names[f.stream]
        switch self {
        case .jsonl:
            let seconds = "\(wall / 1_000_000_000).\(String(wall / 1000 % 1_000_000).leftPadded(to: 6))"
            return "{\"sender\":\"\(name.sender)\",\"stream\":\"\(name.stream)\",\"seq\":\(f.sequence),"
                + "\"time\":\(seconds),\"roll\":\(f.frame.roll),\"pitch\":\(f.frame.pitch),\"yaw\":\(f.frame.yaw),"
                + "\"buttons\":\(f.buttons.rawValue)}"
        case .text:
            func deg(_ r: Float) -> String { fixed(Double(r) * 180 / .pi, 3, width: 8) + "°" }
            return "\(names.secondText).\(String(wall / 1000 % 1_000_000).leftPadded(to: 6))Z \(name.full) #\(f.sequence) roll \(deg(f.frame.roll)) "
                + "pitch \(deg(f.frame.pitch)) yaw \(deg(f.frame.yaw))"
                + (f.buttons.isEmpty ? "" : " buttons 0x\(String(f.buttons.rawValue, radix: 16))")
        }
    }
}

/// The printed names of streams, made once per stream rather than once per frame.
struct StreamNames {
    struct Name {
        var sender: String, stream: String, full: String
    }
    private var cache: [AttitudeReceiver.StreamKey: Name] = [:]
    private var second: UInt64 = .max
    /// `2026-11-22T01:50:00` for the second last passed to ``updateSecond(_:)`` (UTC).
    private(set) var secondText = ""

    /// Makes ``secondText`` show the second of `wallNanoseconds`, formatting only when it changes.
    mutating func updateSecond(_ wallNanoseconds: UInt64) {
        let s = wallNanoseconds / 1_000_000_000
        guard s != second else { return }
        second = s
        secondText = String(WallClock.iso8601(nanoseconds: s * 1_000_000_000).prefix(19))
    }

    subscript(key: AttitudeReceiver.StreamKey) -> Name {
        mutating get {
            if let name = cache[key] { return name }
            if cache.count > 4096 { cache.removeAll() }
            let name = Name(sender: key.sender.description, stream: String(key.streamID, radix: 16), full: key.description)
            cache[key] = name
            return name
        }
    }
}

/// Per-second rates from cumulative counters.
struct ReceiveStatistics {
    var previous: [SocketAddress: AttitudeReceiver.SenderCounters] = [:]

    mutating func lines(_ counters: [SocketAddress: AttitudeReceiver.SenderCounters], intervalNanoseconds: UInt64) -> [String] {
        defer { previous = counters }
        if counters.isEmpty { return ["stats: no senders yet"] }
        return counters.sorted { $0.key.description < $1.key.description }.map { sender, c in
            let frames = c.frames - (previous[sender]?.frames ?? 0)
            let rate = Double(frames) * 1e9 / Double(max(intervalNanoseconds, 1))
            return "stats \(sender): \(Int(rate.rounded())) frames/s, dropped \(c.dropped), lost \(c.lost), reordered \(c.reordered)"
        }
    }
}
