import ArgumentParser
import Mouse3DCore
import Mouse3DLinux
import Mouse3DPhone

/// The source half of a pipeline, shared by `send` and `run`: which motion source, how a log is
/// replayed, the pace of the outputs. Each flag overrides the configuration. The controller's
/// buttons, the filter and the live-sensor settings are groups of their own beside it in the
/// command (not nested in this one: swift-argument-parser's debug builds check nested groups over
/// and over, which made `run` take 0.27 s of CPU to start, half a minute under emulation).
struct MotionSourceOptions: ParsableArguments {
    @Option(
        help:
            "Motion source: auto (the best sensor found), evdev:/dev/input/eventN, iio:NAME, replay:LOG.csv, or phone[:[ADDR:]PORT] (a phone's browser: scan the QR code shown; port 24933) (default: send.source, auto)."
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
        if case .phone? = source, buttons.given {
            throw ValidationError(
                "--clutch, --recenter, --primary, --secondary and --recalibrate read a controller's buttons; the phone page has its own (left click, right click, recenter, hold to move)."
            )
        }
        if case .replay? = source, buttons.given {
            throw ValidationError(
                "--clutch, --recenter, --primary, --secondary and --recalibrate read a live controller's buttons; a replayed log has none (SIGUSR1 still recenters)."
            )
        }
    }

    /// Adds these flags and those of the groups beside them to `layer`.
    func addFlags(
        to layer: inout ConfigurationLayer, buttons: ButtonOptions, filter: FilterOptions, live: LiveSourceOptions
    ) throws {
        try filter.addFlags(to: &layer)
        try buttons.addFlags(to: &layer)
        try live.addFlags(to: &layer)
        if let rate { try layer.set("send.rate", .number(rate), origin: .flag("--rate")) }
        if let source { try layer.set("send.source", .text(source.description), origin: .flag("--source")) }
    }

    /// The source the configuration names (checked, with where it was set), after checking the
    /// button names: nothing opens before both are known to be good.
    static func chosenSource(_ configuration: Configuration) throws -> SourceSpecifier {
        let text = configuration[.sendSource] ?? "auto"
        guard let source = SourceSpecifier(argument: text) else {
            throw CommandFailure(
                "\(configuration.invalid(.sendSource, "'\(text)' is not auto, evdev:PATH, iio:NAME, replay:LOG.csv or phone[:[ADDR:]PORT]"))"
            )
        }
        _ = try ButtonSettings(configuration)
        return source
    }

    /// An opened source, with the buttons it reads.
    struct Opened {
        var source: MotionSampleSource
        var buttons: ButtonSettings?
        /// What it reads, for the start-up line (a live device with its gamepad).
        var summary: String
        var isReplay: Bool
        /// The key its gyroscope calibration is kept under.
        var calibrationKey: String
        /// How a gamepad's driver axes become mouse3d's frame (calibration files keep the driver's).
        var gamepadAxes: GamepadMotionAxes? = nil
    }

    /// Opens `source`: a log played at --speed (looped with --loop), or a live sensor followed
    /// through unplugging (its device profile applied to `configuration` first).
    /// `extraButtons`, `axes`: evdev codes read from the gamepad for outputs (a DSU server), besides the configured buttons.
    func open(
        _ source: SourceSpecifier, configuration: inout Configuration, diagnostics: Diagnostics,
        extraButtons: Set<Int32> = [], axes: Set<Int32> = []
    ) throws -> Opened {
        switch source {
        case .replay(let path):
            let log = try openMotionLog(path: path)
            let speedFactor: Double? = if case .factor(let f) = speed { f } else { nil }
            let playback = MotionLogPlayback(file: log, loops: loop, speed: speedFactor)
            let key = GyroCalibration.logKey(path: path)
            // A log's own setup (`calibrate --axes` on it), kept under its path.
            if let setup = try AxesSetupStore.load(device: key) {
                return Opened(
                    source: TurnedSampleSource(playback, by: setup), buttons: nil,
                    summary: source.description + ", \(setup.summary)", isReplay: true, calibrationKey: key,
                    gamepadAxes: GamepadMotionAxes(setup))
            }
            return Opened(
                source: playback, buttons: nil,
                summary: source.description + (log.frame == MotionLog.mouse3dFrame ? " (in mouse3d's frame)" : ""),
                isReplay: true, calibrationKey: key,
                gamepadAxes: log.frame == MotionLog.mouse3dFrame ? .recordedInMouse3DFrame : nil)
        case .phone(let address, let port):
            let phone = try Self.openPhone(
                address: address, port: port, remember: phoneRemember, diagnostics: diagnostics)
            let map = GamepadButtonMap(
                clutch: PhoneSource.holdToMoveCode, recenter: PhoneSource.recenterCode, primary: PhoneSource.leftCode,
                secondary: PhoneSource.rightCode)
            return Opened(
                source: phone, buttons: ButtonSettings(map: map, clutchMode: .hold), summary: phone.summary,
                isReplay: false,
                calibrationKey: "phone", gamepadAxes: phone.frameAxes)
        case .live(let request):
            var buttonSettings: ButtonSettings?
            let follower = try LiveSourceOptions.follow(
                request, configuration: &configuration,
                watchingButtons: { c in
                    let settings = try ButtonSettings(c)
                    buttonSettings = settings
                    return settings.map.codes.union(extraButtons)
                }, axes: axes, diagnostics: diagnostics)
            return Opened(
                source: follower, buttons: buttonSettings,
                summary: follower.summary + (follower.buttonDeviceName.map { ", buttons from '\($0)'" } ?? ""),
                isReplay: false,
                calibrationKey: follower.identity.calibrationKey, gamepadAxes: follower.identity.gamepadAxes)
        }
    }

    /// The phone page's server on `address`:`port` (its certificate made or loaded for the machine's
    /// addresses, its token fresh, the remembered phones known), the URLs, QR code and the certificate
    /// step said.
    static func openPhone(address: String, port: UInt16, remember: Bool, diagnostics: Diagnostics) throws -> PhoneSource
    {
        do {
            let lan = address == "0.0.0.0" || address == "::" ? LocalAddresses.current() : []
            // The certificate covers the address in the QR code's URL (and the names): not every
            // address the machine has (rotating IPv6 ones, VPNs), which would make it anew, and the
            // browser warn again, at each change, and show them all to anyone who connects.
            let (certificate, created) = try PhoneSetup.certificate(addresses: lan.prefix(1).map(\.address))
            let folder = FileSystem.userConfigurationDirectory
            let credentials = try PhoneSetup.credentials(remember: remember, configurationDirectory: folder)
            let phone = try PhoneSource(
                address: address, port: port, credentials: credentials, certificate: certificate,
                lanAddresses: lan.map(\.urlHost))
            phone.report = { diagnostics.say("phone: \($0)") }
            phone.remember = { try PhoneSetup.storeRemembered($0, configurationDirectory: folder) }
            if let setup = try AxesSetupStore.load(device: "phone") {
                phone.use(setup)
                diagnostics.say("phone: \(setup.summary)")
            }
            PhoneSetup.announce(phone, certificateCreated: created, diagnostics: diagnostics)
            return phone
        } catch {
            throw CommandFailure("--source phone: \(error)")
        }
    }

    /// The fusion stage for `configuration` (its filter), the opened source's clutch and its stored
    /// gyroscope calibration, with the words the start-up line says about that calibration.
    static func fusion(_ configuration: Configuration, _ opened: Opened) throws -> (
        fusion: MotionFusion, calibration: String
    ) {
        let calibration = try CalibrationStore.load(device: opened.calibrationKey)
        let fusion = MotionFusion(
            parameters: FilterOptions.parameters(configuration),
            clutchMode: opened.buttons?.map.clutch == nil ? nil : opened.buttons?.clutchMode,
            calibration: calibration.map { opened.gamepadAxes?.fromDriver($0) ?? $0 }, device: opened.calibrationKey)
        return (
            fusion,
            calibration.map { "gyroscope bias \($0.summary) from calibration" }
                ?? "gyroscope not calibrated (mouse3d calibrate), learning its bias"
        )
    }

    /// The pace of the outputs (`send.rate`), nil for one update per sample.
    static func rate(_ configuration: Configuration) -> Double? {
        let rate = configuration[.sendRate]
        return rate > 0 ? rate : nil
    }

    /// Stores what a recalibrate button measures, and says so.
    static func storeCalibrations(
        of pipeline: MotionPipeline, axes: GamepadMotionAxes?, diagnostics: Diagnostics
    ) {
        pipeline.onCalibrated = { measured in
            let calibration = axes?.toDriver(measured) ?? measured
            do {
                let path = try CalibrationStore.save(calibration)
                diagnostics.say(
                    "calibrated: gyroscope bias \(calibration.summary) from \(calibration.samples) samples, in use; stored in \(path)"
                )
            } catch {
                diagnostics.say("calibrated: gyroscope bias \(calibration.summary), in use, but not stored: \(error)")
            }
        }
    }
}
