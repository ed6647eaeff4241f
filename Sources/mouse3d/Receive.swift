import ArgumentParser
import Mouse3DAssembly
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

        @Option(
            help:
                "Address to listen on, [ADDR]:PORT (default 0.0.0.0:\(StreamDefaults.port); with --insecure or --raw 127.0.0.1:\(StreamDefaults.port)).",
            transform: AddressArgument.init(parsing:))
        var listen: AddressArgument?

        @OptionGroup var outputs: OutputOptions

        @Flag(
            inversion: .prefixedNo,
            help: "Print per-sender statistics to standard error once a second (default: receive.stats, off).")
        var stats: Bool?

        @Flag(
            help:
                "Accept bare 12-byte frames (roll, pitch, yaw) from anyone instead of sealed datagrams (unauthenticated)."
        )
        var raw = false

        @Flag(help: "Accept plain, unauthenticated datagrams from anyone instead of sealed ones from paired senders.")
        var insecure = false

        @Flag(
            help:
                "Measure the latency from each frame's send call to its output (same machine only) and report it at the end."
        )
        var latency = false

        @Option(
            help: ArgumentHelp(
                "With --latency: count only frames received SECONDS or more after the first (a benchmark's warm-up).",
                valueName: "seconds", visibility: .hidden))
        var latencyWarmUp: Double = 0

        @Option(
            help: ArgumentHelp(
                "Predict through gaps in a sender's frames: carry the attitude on at its last angular velocity for at most MS milliseconds (1–250) for --uinput and --opentrack (off by default).",
                valueName: "MS"))
        var extrapolate: Int?

        @Flag(help: "Print nothing on standard error but errors.")
        var quiet = false

        func validate() throws {
            if let extrapolate, !(1...250).contains(extrapolate) {
                throw ValidationError(
                    "--extrapolate takes 1 to 250 ms: longer than a frame gap, shorter than the 500 ms after which a sender counts as lost."
                )
            }
            if raw && insecure {
                throw ValidationError("Choose --raw (bare frames) or --insecure (plain datagrams), not both.")
            }
        }

        /// What is accepted.
        var wireFormat: WireFormat { raw ? .raw : insecure ? .datagram : .sealed }

        func run() throws {
            let session = try Session(signals: [.stop, .reload], quiet: quiet)
            let diagnostics = session.diagnostics
            let flags = try EffectiveConfiguration.flags(addFlags)
            var configuration = try EffectiveConfiguration.load(flags: flags)
            var settings = try ReceiveSettings(configuration, printFlag: outputs.print, uinputFlag: outputs.uinput)
            let endpoint = try ReceptionEndpoint(
                endpointRequest(configuration, settings),
                preflight: { if settings.uinput != nil { try UinputOutput.checkAccess() } }, diagnostics: diagnostics)
            let built = try assembleOutputs(settings, diagnostics: diagnostics)
            // Announced once the outputs are known (what is printed follows the outputs asked for).
            let announcer =
                configuration[.networkDiscovery]
                ? endpoint.announcer(outputs: built.announcedNames, diagnostics: diagnostics) : nil
            let reception = StreamReception(
                receiver: endpoint.receiver, pairings: endpoint.pairings, outputs: AttitudePipeline(outputs: built.all),
                printsStatistics: settings.stats, measuresLatency: latency,
                latencyWarmUpNanoseconds: UInt64(max(0, latencyWarmUp) * 1e9), diagnostics: diagnostics)
            session.loop.onReload = {
                reload(&configuration, &settings, flags: flags, diagnostics: diagnostics)
                try? endpoint.pairings?.reload(force: true)  // the senders' folder reread, even if it was replaced
                built.retune(
                    OutputTuning(format: settings.format, mapping: settings.mapping, gyroStick: settings.gyroStick))
                reception.printsStatistics = settings.stats
            }
            session.add(reception.part)  // devices at rest on every way out
            session.add(announcer)
            for plugged in built.plugged { session.add(plugged.part) }
            try session.run(stopLine: .always)
        }
    }
}

extension Mouse3D.Receive {
    /// The flags that override the configuration.
    func addFlags(to flags: inout ConfigurationLayer) throws {
        try outputs.addFlags(to: &flags)
        if let stats { try flags.set(.receiveStats, stats, origin: .flag("--[no-]stats")) }
        if let uinput = outputs.uinput {
            try flags.set(.receiveOutput, uinput.rawValue, origin: .flag("--uinput"))
        }
    }

    /// Where to listen, and for what.
    func endpointRequest(_ configuration: Configuration, _ settings: ReceiveSettings) -> ReceptionEndpoint.Request {
        .init(
            listen: listen?.text, configuredListen: configuration[.receiveListen],
            listenIsBuiltIn: configuration.origin(.receiveListen) == .builtIn,
            port: UInt16(configuration[.networkPort]), pairingPort: UInt16(configuration[.networkPairingPort]),
            format: wireFormat, drivesDevices: settings.uinput != nil)
    }

    /// Received frames → printed lines and/or one virtual device per sender, with prediction through
    /// gaps for the outputs that drive something (not printing, not the view); their lines said.
    func assembleOutputs(_ settings: ReceiveSettings, diagnostics: Diagnostics) throws -> OutputOptions.Assembled {
        let built = try outputs.assemble(
            .init(
                uinput: settings.uinput, printsByDefault: settings.print, format: settings.format,
                mapping: settings.mapping, gyroStick: settings.gyroStick,
                showsLatency: latency,
                wrap: { output, kind in
                    guard let extrapolate, kind == .device || kind == .drivesSomething else { return output }
                    return ExtrapolatingOutput(output, capNanoseconds: UInt64(extrapolate) * 1_000_000)
                }),
            diagnostics: diagnostics)
        for line in built.plugged.flatMap({ [$0.announcement, $0.startLine].compactMap { $0 } }) {
            diagnostics.say(line)
        }
        return built
    }
}

extension Mouse3D.Receive {
    /// On SIGHUP: rereads the configuration; if it loads, the pointer settings, print format and
    /// statistics switch to it at once (the listening address, port and output mode at the next
    /// start); if not, the running configuration stays and the problem is reported.
    func reload(
        _ configuration: inout Configuration, _ settings: inout ReceiveSettings, flags: ConfigurationLayer,
        diagnostics: Diagnostics
    ) {
        let next: Configuration
        let nextSettings: ReceiveSettings
        do {
            next = try EffectiveConfiguration.load(flags: flags)
            nextSettings = try ReceiveSettings(next, printFlag: outputs.print, uinputFlag: outputs.uinput)
        } catch {
            diagnostics.say("SIGHUP: configuration not reloaded, the running one stays: \(error)")
            return
        }
        let changed = zip(configuration.listing, next.listing).filter { $0 != $1 }.map(\.1)
        var later: [String] = []
        if nextSettings.uinput != settings.uinput || nextSettings.print != settings.print {
            later.append(ConfigurationKey<String?>.receiveOutput.path)
        }
        if next[.networkPort] != configuration[.networkPort] { later.append(ConfigurationKey<Int64>.networkPort.path) }
        if next[.receiveListen] != configuration[.receiveListen] {
            later.append(ConfigurationKey<String?>.receiveListen.path)
        }
        settings.mapping = nextSettings.mapping
        settings.gyroStick = nextSettings.gyroStick
        settings.format = nextSettings.format
        settings.stats = nextSettings.stats
        configuration = next
        diagnostics.say(
            changed.isEmpty
                ? "SIGHUP: configuration reread, nothing changed"
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
    var gyroStick: GyroStickMapping

    init(_ c: Configuration, printFlag: Bool, uinputFlag: UinputMode?) throws {
        let output = c[.receiveOutput] ?? "print"
        if printFlag || uinputFlag != nil {
            print = printFlag
            uinput = uinputFlag
        } else {
            print = output == "print"
            uinput = UinputMode(rawValue: output)
        }
        format = PrintFormat(rawValue: c[.receiveFormat] ?? "text") ?? .text
        stats = c[.receiveStats]
        mapping = try PointerOptions.mapping(c)
        gyroStick = try GamepadOptions.mapping(c)
    }
}

/// How `receive --print` shows a frame: text or jsonl.
typealias PrintFormat = AttitudePrintFormat

extension AttitudePrintFormat: ExpressibleByArgument {}

extension UinputMode: ExpressibleByArgument {}
