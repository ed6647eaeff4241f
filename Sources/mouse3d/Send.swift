import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d send`: fuse motion and stream attitudes to peers.
    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuse motion and stream attitude frames to receivers over UDP.",
            discussion: """
                Frames are sealed for paired receivers (see `mouse3d pair`): without --to, to every paired \
                receiver, found on the local network through Avahi and followed as it restarts or moves \
                (--discover NAME: only that one); with --to, to the paired receiver at that address \
                (--pair CODE pairs first). \
                --insecure sends plain datagrams and --raw bare 12-byte frames, unauthenticated, to any \
                --to. Every sample is fused. Without --rate one datagram goes out per fused sample; with --rate \
                the latest attitude goes out at that rate. A peer that is not listening or a network that \
                goes away does not stop the stream. SIGINT or SIGTERM ends it cleanly.
                """)

        @Option(
            name: .customLong("to"),
            help:
                "A receiver, HOST[:PORT], [IPv6][:PORT] or a paired receiver's name; repeat for up to 8 (default port \(StreamDefaults.port); default: every paired receiver)."
        )
        var peers: [String] = []

        @Option(help: "Pair with the --to receiver first, using the code its `mouse3d pair` shows.")
        var pair: String?

        @Flag(
            help:
                "Find paired receivers on the local network (DNS-SD through Avahi) and follow them as they move or restart (the default without --to, unless network.discovery is off)."
        )
        var discover = false

        @Argument(help: "With --discover: stream only to the paired receiver of this name (or fingerprint).")
        var name: String?

        @Flag(help: "Send plain, unauthenticated datagrams (for receive --insecure) instead of sealed ones.")
        var insecure = false

        @Flag(help: "Send bare 12-byte frames (roll, pitch, yaw) without the datagram header (unauthenticated).")
        var raw = false

        @Flag(help: "Print nothing but errors.")
        var quiet = false

        @OptionGroup var motion: MotionSourceOptions

        @OptionGroup var buttons: ButtonOptions

        @OptionGroup var filter: FilterOptions

        @OptionGroup var live: LiveSourceOptions

        @OptionGroup var dsu: DSUOptions

        /// What is sent.
        var wireFormat: WireFormat { raw ? .raw : insecure ? .datagram : .sealed }

        func validate() throws {
            try motion.validate(buttons: buttons)
            if raw && insecure {
                throw ValidationError("Choose --raw (bare frames) or --insecure (plain datagrams), not both.")
            }
            if name != nil && !discover {
                throw ValidationError(
                    "A receiver name as an argument goes with --discover (mouse3d send --discover NAME); or give it with --to NAME."
                )
            }
            if discover && !peers.isEmpty {
                throw ValidationError("--discover finds receivers by itself; it does not go with --to.")
            }
            if discover && wireFormat != .sealed {
                throw ValidationError(
                    "--discover finds paired receivers, which take sealed frames; it does not go with --raw or --insecure."
                )
            }
            if let pair {
                guard wireFormat == .sealed else {
                    throw ValidationError(
                        "--pair makes a pairing for sealed frames; it does not go with --raw or --insecure.")
                }
                guard peers.count == 1 else {
                    throw ValidationError("--pair needs exactly one receiver: --to HOST --pair CODE.")
                }
                guard PairingCode(parsing: pair) != nil else {
                    throw ValidationError(
                        "The code is 8 digits, as shown by `mouse3d pair` on the receiver (for example 1234-5678).")
                }
            }
            guard peers.count <= StreamDefaults.maximumPeers else {
                throw ValidationError(
                    "At most \(StreamDefaults.maximumPeers) receivers (--to) at once; \(peers.count) were given.")
            }
        }

        func run() throws {
            let session = try Session(signals: .all, quiet: quiet)
            let diagnostics = session.diagnostics
            let flags = try EffectiveConfiguration.flags(addFlags)
            var configuration = try EffectiveConfiguration.load(flags: flags)
            let source = try SourceCatalog.chosen(configuration)
            let targets = try StreamTargets(targetsRequest(configuration), diagnostics: diagnostics)
            // The pipeline: source → fusion → the network stream.
            let opened = try motion.open(
                source, configuration: &configuration, diagnostics: diagnostics, pad: dsu.pad)
            let dsuServer = try dsu.start(
                device: opened.calibrationKey, inGamepadFrame: opened.gamepadAxes != nil, diagnostics: diagnostics)
            let stream = paced(targets.output(report: diagnostics.say), hertz: MotionSourceOptions.rate(configuration))
            let fusion = try FusionStage(
                opened, parameters: FilterOptions.parameters(configuration), outputs: [stream],
                observers: dsuServer.map { [$0] } ?? [], diagnostics: diagnostics)
            diagnostics.say(
                "sending \(targets.destination) from \(opened.summary)\(targets.following); \(fusion.calibration)")
            let running = configuration
            session.loop.onReload = {
                reportReload(of: running, replay: opened.isReplay, flags: flags, diagnostics: diagnostics)
            }
            // Discovery joins the loop first and the pipeline last, so that discovery's first probe
            // goes out before a short log at --speed max can end the stream in the loop's first
            // pass; the closing lines still say the source, DSU, then the receivers.
            session.add(Part(attach: targets.attach(to:), closing: { fusion.pipeline.source.closingSummary }))
            session.add(dsuServer)
            session.add(Part(attach: fusion.pipeline.start(on:), closing: { targets.summary }))
            try session.run(stopLine: .onSignal)
        }
    }
}

extension Mouse3D.Send {
    /// The flags that override the configuration.
    func addFlags(to flags: inout ConfigurationLayer) throws {
        try motion.addFlags(to: &flags, buttons: buttons, filter: filter, live: live)
        if !peers.isEmpty { try flags.set(.sendTo, peers, origin: .flag("--to")) }
    }

    /// The receivers to send to: given, paired with --pair, or found.
    func targetsRequest(_ configuration: Configuration) -> StreamTargets.Request {
        .init(
            peers: configuration[.sendTo], format: wireFormat, pairCode: pair.flatMap(PairingCode.init(parsing:)),
            discover: discover || configuration[.networkDiscovery], discoverName: name,
            port: UInt16(configuration[.networkPort]), pairingPort: UInt16(configuration[.networkPairingPort]))
    }

    /// On SIGHUP: rereads the configuration and says what changed. The fusion, the buttons watched
    /// and the receivers are set when a stream starts, so changes to them take effect at the next
    /// start; a configuration that does not load is reported and nothing changes. A replayed log
    /// keeps its settings.
    func reportReload(of running: Configuration, replay: Bool, flags: ConfigurationLayer, diagnostics: Diagnostics) {
        if replay { return diagnostics.say("SIGHUP: a replayed log keeps the settings it started with") }
        do {
            var next = try EffectiveConfiguration.load(flags: flags)
            if let (profile, _) = running.activeProfile, let device = running.activeDevice {
                next.applyProfile(for: device)
                _ = profile
            }
            let changed = zip(running.listing, next.listing).filter { $0 != $1 }.map(\.1)
            diagnostics.say(
                changed.isEmpty
                    ? "SIGHUP: configuration reread, nothing changed"
                    : "SIGHUP: changed, effective at the next start of send: " + changed.joined(separator: "; "))
        } catch {
            diagnostics.say("SIGHUP: configuration not reloaded, the running one stays: \(error)")
        }
    }
}
