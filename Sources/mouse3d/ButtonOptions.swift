import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

/// Which gamepad buttons do what (buttons of the gamepad next to the motion sensor).
struct ButtonOptions: ParsableArguments {
    @Option(help: "Button that enables motion (BTN_* name, e.g. BTN_TL); without one, motion is always on.")
    var clutch: String?

    @Option(help: "hold: motion while the clutch is held; toggle: each press switches it.")
    var clutchMode: MotionGestures.ClutchMode = .hold

    @Option(help: "Button that recenters (the current attitude becomes zero), e.g. BTN_SOUTH. SIGUSR1 recenters too.")
    var recenter: String?

    @Option(help: "Button sent as the primary click, e.g. BTN_TR.")
    var primary: String?

    @Option(help: "Button sent as the secondary click, e.g. BTN_TR2.")
    var secondary: String?

    func validate() throws {
        for (option, name) in [("--clutch", clutch), ("--recenter", recenter), ("--primary", primary), ("--secondary", secondary)] {
            if let name, GamepadButtons.code(named: name) == nil {
                throw ValidationError("\(option): '\(name)' is not a button name; use names such as BTN_SOUTH, BTN_TL, BTN_TR2, BTN_SELECT.")
            }
        }
    }

    /// The codes to watch.
    var codes: Set<Int32> { Set([clutch, recenter, primary, secondary].compactMap { $0.flatMap(GamepadButtons.code(named:)) }) }

    /// Applies one button change to the publisher.
    func apply(_ change: (code: Int32, pressed: Bool), to publisher: AttitudePublisher, diagnostics: Diagnostics) {
        func matches(_ name: String?) -> Bool { name.flatMap(GamepadButtons.code(named:)) == change.code }
        if matches(clutch) { publisher.clutch(pressed: change.pressed) }
        if matches(recenter) {
            publisher.set(.recenter, held: change.pressed)
            if change.pressed {
                publisher.recenter()
                diagnostics.say("recentred (\(GamepadButtons.name(of: change.code)))")
            }
        }
        if matches(primary) { publisher.set(.primary, held: change.pressed) }
        if matches(secondary) { publisher.set(.secondary, held: change.pressed) }
    }
}

extension MotionGestures.ClutchMode: ExpressibleByArgument {}
