import Mouse3DCore
import Mouse3DLinux

/// The buttons in effect (from the configuration), with their codes.
public struct ButtonSettings: Equatable, Sendable {
    public var map: GamepadButtonMap
    public var clutchMode: MotionGestures.ClutchMode

    /// Settings of a source with buttons of its own (the phone page's).
    public init(map: GamepadButtonMap, clutchMode: MotionGestures.ClutchMode) {
        self.map = map
        self.clutchMode = clutchMode
    }

    /// Reads and checks the [send] button settings; a name that is not a button is an error naming
    /// where it was set.
    public init(_ c: Configuration) throws {
        func code(_ key: ConfigurationKey<String?>) throws -> Int32? {
            guard let name = c[key] else { return nil }
            guard let code = GamepadButtons.code(named: name) else {
                throw ActionableError(
                    "\(c.invalid(key, "'\(name)' is not a button name; use names such as BTN_SOUTH, BTN_TL, BTN_TR2"))"
                )
            }
            return code
        }
        map = GamepadButtonMap(
            clutch: try code(.sendClutch), recenter: try code(.sendRecenter), primary: try code(.sendPrimary),
            secondary: try code(.sendSecondary), recalibrate: try code(.sendRecalibrate))
        clutchMode = MotionGestures.ClutchMode(rawValue: c[.sendClutchMode] ?? "hold") ?? .hold
    }
}
