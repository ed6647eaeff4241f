import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

/// The source half of a pipeline, shared by `send` and `run`: which motion source, how a log is
/// replayed, the pace of the outputs. Each flag overrides the configuration. The controller's
/// buttons, the filter and the live-sensor settings are groups of their own beside it in the
/// command (not nested in this one: swift-argument-parser's debug builds check nested groups over
/// and over, which made `run` take 0.27 s of CPU to start, half a minute under emulation).
struct MotionSourceOptions: ParsableArguments {
    @Option(
        help:
            "Motion source: \(SourceCatalog.help()) (default: send.source, auto)."
    )
    var source: SourceSpecifier?

    @Flag(
        help:
            "With --source phone: remember the phone that scans the code (it keeps a key of its own and reconnects after a restart with no new scan; 'mouse3d pair --revoke phone' forgets it)."
    )
    var phoneRemember = false

    @Flag(help: "Replay the log over and over until interrupted.")
    var loop = false

    @Option(help: "Replay speed: a factor of real time (1 = as recorded) or 'max'.")
    var speed: ReplaySpeed = .factor(1)

    @Option(help: "Hand on the latest attitude at this rate in Hz instead of once per sample (default: send.rate).")
    var rate: Double?

    func validate() throws {
        if let rate, !(rate.isFinite && rate > 0 && rate <= 100_000) {
            throw ValidationError("--rate must be between 0 and 100000 Hz.")
        }
    }

    /// Checks the source against the button flags given beside it.
    func validate(buttons: ButtonOptions) throws {
        if let refusal = source?.kind.buttonFlagsRefusal, buttons.given { throw ValidationError(refusal) }
    }

    /// Adds these flags and those of the groups beside them to `layer`.
    func addFlags(
        to layer: inout ConfigurationLayer, buttons: ButtonOptions, filter: FilterOptions, live: LiveSourceOptions
    ) throws {
        try filter.addFlags(to: &layer)
        try buttons.addFlags(to: &layer)
        try live.addFlags(to: &layer)
        if let rate { try layer.set(.sendRate, rate, origin: .flag("--rate")) }
        if let source { try layer.set(.sendSource, source.description, origin: .flag("--source")) }
    }

    /// Opens `source` to be fused: a log played at --speed (looped with --loop), a phone
    /// (remembered with --phone-remember), or a live sensor followed through unplugging (its device
    /// profile applied to `configuration` first). `pad`: what outputs need of the gamepad (a DSU
    /// server, the virtual gamepad), besides the configured buttons.
    func open(
        _ source: any SourceKind, configuration: inout Configuration, diagnostics: Diagnostics,
        pad: PadNeeds = PadNeeds()
    ) throws -> OpenedSource {
        let speedFactor: Double? = if case .factor(let f) = speed { f } else { nil }
        return try source.open(
            .fuse(speed: speedFactor, loops: loop, rememberPhone: phoneRemember, pad: pad),
            configuration: &configuration, diagnostics: diagnostics)
    }

    /// The pace of the outputs (`send.rate`), nil for one update per sample.
    static func rate(_ configuration: Configuration) -> Double? {
        let rate = configuration[.sendRate]
        return rate > 0 ? rate : nil
    }
}
