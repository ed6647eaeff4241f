import ArgumentParser
import Mouse3DCore

/// The virtual gamepad's gyro stick for `--uinput gamepad`: the game's own stick settings, so that
/// the camera follows the controller; each flag overrides the configuration's [gamepad] setting
/// (the rest, gyro space and inversion among them, are the file's).
struct GamepadOptions: ParsableArguments {
    @Option(help: "With --uinput gamepad: the stick the gyroscope drives, right (default) or left.")
    var stick: GyroStickMapping.Stick?

    @Option(help: "With --uinput gamepad: the camera's turn per degree the controller turns (default 1).")
    var stickSensitivity: Double?

    @Option(
        help: ArgumentHelp(
            "With --uinput gamepad: the game's camera speed at full stick deflection, °/s (default 360).",
            valueName: "DEG/S"))
    var gameFullSpeed: Double?

    @Option(
        help:
            "With --uinput gamepad: the game's stick dead zone, a fraction of the stick's reach (0 to 0.95): the smallest turn starts past it (default 0)."
    )
    var gameDeadZone: Double?

    func addFlags(to layer: inout ConfigurationLayer) throws {
        if let stick { try layer.set(.gamepadStick, stick.rawValue, origin: .flag("--stick")) }
        if let stickSensitivity {
            try layer.set(.gamepadSensitivity, stickSensitivity, origin: .flag("--stick-sensitivity"))
        }
        if let gameFullSpeed {
            try layer.set(.gamepadFullSpeed, gameFullSpeed, origin: .flag("--game-full-speed"))
        }
        if let gameDeadZone {
            try layer.set(.gamepadInnerDeadZone, gameDeadZone, origin: .flag("--game-dead-zone"))
        }
    }

    /// The gyro stick of a configuration (dead zones that leave no stick between them are an error
    /// naming where they were set).
    static func mapping(_ c: Configuration) throws -> GyroStickMapping {
        var m = GyroStickMapping()
        m.stick = GyroStickMapping.Stick(rawValue: c[.gamepadStick] ?? "right") ?? .right
        m.sensitivity = c[.gamepadSensitivity]
        m.fullSpeedDegreesPerSecond = c[.gamepadFullSpeed]
        m.innerDeadZone = c[.gamepadInnerDeadZone]
        m.outerDeadZone = c[.gamepadOuterDeadZone]
        m.power = c[.gamepadPower]
        m.restDegreesPerSecond = c[.gamepadRestSpeed]
        m.gyroSpace = GyroSpace(rawValue: c[.gamepadGyroSpace] ?? "player") ?? .player
        m.invertX = c[.gamepadInvertX]
        m.invertY = c[.gamepadInvertY]
        if !m.deadZonesLeaveRoom {  // each is 0 or more by its key's range: their sum is what fails
            throw CommandFailure(
                "\(c.invalid(.gamepadOuterDeadZone, "with gamepad.inner_dead_zone \(m.innerDeadZone) (\(c.origin(.gamepadInnerDeadZone))) it leaves none of the stick between them: their sum must be under 1"))"
            )
        }
        return m
    }
}

extension GyroStickMapping.Stick: ExpressibleByArgument {}
