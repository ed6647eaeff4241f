import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

/// Which gamepad buttons do what (buttons of the gamepad next to the motion sensor); each flag
/// overrides the configuration's [send] setting.
struct ButtonOptions: ParsableArguments {
    @Option(help: "Button that enables motion (BTN_* name, e.g. BTN_TL); without one, motion is always on.")
    var clutch: String?

    @Option(help: "hold: motion while the clutch is held; toggle: each press switches it (default hold).")
    var clutchMode: MotionGestures.ClutchMode?

    @Option(help: "Button that recenters (the current attitude becomes zero), e.g. BTN_SOUTH. SIGUSR1 recenters too.")
    var recenter: String?

    @Option(help: "Button sent as the primary click, e.g. BTN_TR.")
    var primary: String?

    @Option(help: "Button sent as the secondary click, e.g. BTN_TR2.")
    var secondary: String?

    @Option(
        help:
            "Button that measures the gyroscope bias anew: press it, put the controller down for 5 s; the result is stored as `mouse3d calibrate` stores it."
    )
    var recalibrate: String?

    func validate() throws {
        for (option, name) in [
            ("--clutch", clutch), ("--recenter", recenter), ("--primary", primary), ("--secondary", secondary),
            ("--recalibrate", recalibrate)
        ] {
            if let name, GamepadButtons.code(named: name) == nil {
                throw ValidationError(
                    "\(option): '\(name)' is not a button name; use names such as BTN_SOUTH, BTN_TL, BTN_TR2, BTN_SELECT."
                )
            }
        }
    }

    /// Whether any button flag was given.
    var given: Bool { clutch != nil || recenter != nil || primary != nil || secondary != nil || recalibrate != nil }

    func addFlags(to layer: inout ConfigurationLayer) throws {
        let buttons: [(ConfigurationKey<String?>, String, String?)] = [
            (.sendClutch, "--clutch", clutch), (.sendRecenter, "--recenter", recenter),
            (.sendPrimary, "--primary", primary), (.sendSecondary, "--secondary", secondary),
            (.sendRecalibrate, "--recalibrate", recalibrate)
        ]
        for (key, flag, value) in buttons {
            if let value { try layer.set(key, value, origin: .flag(flag)) }
        }
        if let clutchMode {
            try layer.set(.sendClutchMode, clutchMode.rawValue, origin: .flag("--clutch-mode"))
        }
    }
}

extension MotionGestures.ClutchMode: ExpressibleByArgument {}
