import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d run`: source → fusion → outputs, in one process on this machine.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuse a motion source and drive outputs on this machine: no pairing, no network.",
            discussion: """
                The gamepad in your hand as a mouse, here and now: the same sources as `send` (a live \
                sensor followed through unplugging, or a replayed log) and the same outputs as `receive` \
                (--print, --uinput pointer|joystick|spacemouse), without a receiver, a pairing or a \
                stream. Without an output it prints. Works with no configuration at all; a replayed log \
                without --loop ends the run (exit 0); SIGINT or SIGTERM releases every virtual device; \
                SIGUSR1 recentres.
                """)

        @Option(help: "Motion source: auto (the best sensor found), evdev:/dev/input/eventN, iio:NAME, or replay:LOG.csv (default: send.source, auto).")
        var source: SourceSpecifier?

        @Flag(help: "Print each attitude on standard output (the default when no other output is given).")
        var print = false

        @Option(help: "Print format: text (degrees) or jsonl (radians; the same objects as receive prints). Default: receive.format, text.")
        var format: PrintFormat?

        @Option(help: "Drive a virtual input device: pointer (gyro mouse), joystick (absolute pose) or spacemouse (6-DoF rates for spacenavd).")
        var uinput: UinputMode?

        @OptionGroup var pointer: PointerOptions

        @Flag(help: "Replay the log over and over until interrupted.")
        var loop = false

        @Option(help: "Replay speed: a factor of real time (1 = as recorded) or 'max'.")
        var speed: ReplaySpeed = .factor(1)

        @Option(help: "Feed the outputs the latest attitude at this rate in Hz instead of once per sample (default: send.rate).")
        var rate: Double?

        @Flag(help: "Print nothing on standard error but errors.")
        var quiet = false

        @OptionGroup var buttons: ButtonOptions

        @OptionGroup var filter: FilterOptions

        @OptionGroup var live: LiveSourceOptions

        func validate() throws {
            if let rate, !(rate.isFinite && rate > 0 && rate <= 100_000) {
                throw ValidationError("--rate must be between 0 and 100000 Hz.")
            }
            if case .replay? = source, buttons.given {
                throw ValidationError("--clutch, --recenter, --primary and --secondary read a live controller's buttons; a replayed log has none (SIGUSR1 still recenters).")
            }
        }

        func run() throws {
            let events = try EventLoop(signals: .all)
            let diagnostics = Diagnostics(quiet: quiet)
            var flags = ConfigurationLayer()
            try EffectiveConfiguration.flags {
                try filter.addFlags(to: &flags)
                try buttons.addFlags(to: &flags)
                try live.addFlags(to: &flags)
                try pointer.addFlags(to: &flags)
                if let rate { try flags.set("send.rate", .number(rate), origin: .flag("--rate")) }
                if let format { try flags.set("receive.format", .text(format.rawValue), origin: .flag("--format")) }
                if let source { try flags.set("send.source", .text(source.description), origin: .flag("--source")) }
            }
            var configuration = try EffectiveConfiguration.load(flags: flags)
            let sourceText = configuration.text("send.source") ?? "auto"
            guard let source = SourceSpecifier(argument: sourceText) else {
                throw CommandFailure("\(configuration.invalid("send.source", "'\(sourceText)' is not auto, evdev:PATH, iio:NAME or replay:LOG.csv"))")
            }
            _ = try ButtonSettings(configuration)  // bad button names stop the command before anything opens

            // The pipeline: source → fusion → printed lines and/or a virtual device.
            let sampleSource: MotionSampleSource
            var buttonSettings: ButtonSettings?
            switch source {
            case .replay(let path):
                let log = try loadMotionLog(path: path)
                let speedFactor: Double? = if case .factor(let f) = speed { f } else { nil }
                sampleSource = MotionLogPlayback(samples: log.samples, path: path, loops: loop, speed: speedFactor)
            case .live(let request):
                sampleSource = try LiveSourceOptions.follow(
                    request, configuration: &configuration,
                    watchingButtons: { c in
                        buttonSettings = try ButtonSettings(c)
                        return buttonSettings!.map.codes
                    }, diagnostics: diagnostics)
            }
            let printer = print || uinput == nil
                ? PrintOutput(format: PrintFormat(rawValue: configuration.text("receive.format") ?? "text") ?? .text) : nil
            let mapping = uinput == nil ? PointerMapping() : try PointerOptions.mapping(configuration)
            let device = uinput.map { UinputOutput(mode: $0, mapping: mapping, diagnostics: diagnostics) }
            let sendRate = configuration.number("send.rate")
            let outputs = ([device, printer] as [(any AttitudeOutput)?]).compactMap { $0 }.map { paced($0, hertz: sendRate > 0 ? sendRate : nil) }
            let pipeline = MotionPipeline(
                source: sampleSource,
                fusion: MotionFusion(
                    parameters: FilterOptions.parameters(configuration),
                    clutchMode: buttonSettings?.map.clutch == nil ? nil : buttonSettings?.clutchMode),
                buttons: buttonSettings?.map ?? GamepadButtonMap(), outputs: AttitudePipeline(outputs: outputs), report: diagnostics.say)
            defer { pipeline.outputs.finish() }  // devices at rest on every way out
            events.onReload = { diagnostics.say("SIGHUP: run keeps the settings it started with; restart it to apply changes") }
            diagnostics.say("running \(sampleSource.summary) → "
                + ([device.map { "virtual \($0.mode.rawValue)" }, printer.map { _ in "standard output" }].compactMap { $0 }.joined(separator: " and "))
                + (sendRate > 0 ? " at \(fixed(sendRate, 0)) Hz" : ""))
            pipeline.start(on: events)
            let ending = try events.run()
            if case .signal = ending { diagnostics.say("stopping on \(ending.name)") }
        }
    }
}
