import ArgumentParser
import Mouse3DAssembly
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
                (--print, --uinput pointer|joystick|spacemouse|gamepad), without a receiver, a pairing or a \
                stream. Without an output it prints. Works with no configuration at all; a replayed log \
                without --loop ends the run (exit 0); SIGINT or SIGTERM releases every virtual device; \
                SIGUSR1 recentres.

                A phone as the sensor (--source phone, TCP port 24933 on every address): scan the QR \
                code shown with a phone on the same network (or open the URL under it). The browser \
                warns once about mouse3d's own certificate: Chrome: Advanced, then Proceed (unsafe); \
                Safari: Show Details, then visit this website; Firefox: Advanced, then Accept the Risk. \
                Tap Start (an iPhone asks to allow motion access). The page has four touch areas: left \
                click, right click, recenter, and hold to move, the clutch: the pointer moves only while \
                it is held. Hold the phone flat, screen up, and point with its top edge (portrait) or \
                its far side (landscape). The code admits one phone; --phone-remember keeps that phone \
                across restarts. `mouse3d doctor` checks the port and the addresses a phone can reach.
                """)

        @OptionGroup var outputs: OutputOptions

        @OptionGroup var dsu: DSUOptions

        @Flag(help: "Print nothing on standard error but errors.")
        var quiet = false

        @OptionGroup var motion: MotionSourceOptions

        @OptionGroup var buttons: ButtonOptions

        @OptionGroup var filter: FilterOptions

        @OptionGroup var live: LiveSourceOptions

        func validate() throws { try motion.validate(buttons: buttons) }

        func run() throws {
            let session = try Session(signals: .all, quiet: quiet)
            let diagnostics = session.diagnostics
            var configuration = try EffectiveConfiguration.load(flags: try EffectiveConfiguration.flags(addFlags))
            let source = try SourceCatalog.chosen(configuration)
            let pointer = try preflight(configuration)
            let opened = try motion.open(
                source, configuration: &configuration, diagnostics: diagnostics,
                pad: dsu.pad.union(outputs.uinput == .gamepad ? .virtualGamepad : PadNeeds()))
            let dsuServer = try dsu.start(
                device: opened.calibrationKey, inGamepadFrame: opened.gamepadAxes != nil, diagnostics: diagnostics)
            let recenter = RecenterHandle()
            let rate = MotionSourceOptions.rate(configuration)
            let built = try assembleOutputs(
                configuration, opened: opened, pointer: pointer, rate: rate, otherOutputs: dsuServer != nil,
                recenter: recenter, diagnostics: diagnostics)
            let fusion = try FusionStage(
                opened, parameters: FilterOptions.parameters(configuration), outputs: built.all,
                observers: dsuServer.map { [$0] } ?? [], diagnostics: diagnostics)
            recenter.bind(fusion.pipeline)
            session.loop.onReload = { diagnostics.say(Self.reloadLine) }
            diagnostics.say(
                StartLine.running(
                    opened, outputs: built.names, dsu: dsuServer, rate: rate, calibration: fusion.calibration))
            for line in built.plugged.compactMap(\.startLine) { diagnostics.say(line) }  // for scripts to read
            session.add(fusion.pipeline.part)  // devices at rest on every way out
            for plugged in built.plugged { session.add(plugged.part) }
            session.add(dsuServer)
            try session.run(stopLine: .onSignal)
        }
    }
}

extension Mouse3D.Run {
    /// What a SIGHUP gets: run reads its settings once.
    static let reloadLine = "SIGHUP: run keeps the settings it started with; restart it to apply changes"

    /// The flags that override the configuration.
    func addFlags(to flags: inout ConfigurationLayer) throws {
        try motion.addFlags(to: &flags, buttons: buttons, filter: filter, live: live)
        try outputs.addFlags(to: &flags)
    }

    /// Before the source is opened or anything listens: bad settings said, uinput's access checked.
    /// Returns the pointer's mapping.
    func preflight(_ configuration: Configuration) throws -> PointerMapping {
        let pointer = outputs.uinput == nil ? PointerMapping() : try PointerOptions.mapping(configuration)
        _ = try GamepadOptions.mapping(configuration)
        if outputs.uinput != nil { try UinputOutput.checkAccess() }
        return pointer
    }

    /// Fused attitudes → printed lines and/or a virtual device and the view, paced at the source's
    /// rate (`recenter`: what the view's button does).
    func assembleOutputs(
        _ configuration: Configuration, opened: OpenedSource, pointer: PointerMapping, rate: Double?,
        otherOutputs: Bool, recenter: RecenterHandle, diagnostics: Diagnostics
    ) throws -> OutputOptions.Assembled {
        try outputs.assemble(
            .init(
                uinput: outputs.uinput, otherOutputs: otherOutputs,
                format: PrintFormat(rawValue: configuration[.receiveFormat] ?? "text") ?? .text,
                // The gyro stick read again: the device's profile is applied now.
                mapping: pointer, gyroStick: try GamepadOptions.mapping(configuration),
                withheld: opened.buttons?.map.codes ?? [],
                onRecenter: { recenter.recenter(because: "the view's button") }, device: opened.viewDevice,
                wrap: { output, _ in paced(output, hertz: rate) }),
            diagnostics: diagnostics)
    }
}
