import Mouse3DCore
import Mouse3DLinux

/// An opened source, with the buttons it reads and what is said of it.
public struct OpenedSource {
    public var source: MotionSampleSource
    public var buttons: ButtonSettings?
    /// What it reads, for the start-up line (a live device with its gamepad).
    public var summary: String
    public var isReplay: Bool
    /// The key its gyroscope calibration is kept under.
    public var calibrationKey: String
    /// How a gamepad's driver axes become mouse3d's frame (calibration files keep the driver's);
    /// nil: its samples are in its own axes.
    public var gamepadAxes: GamepadMotionAxes?

    /// An opened source.
    public init(
        source: MotionSampleSource, buttons: ButtonSettings?, summary: String, isReplay: Bool, calibrationKey: String,
        gamepadAxes: GamepadMotionAxes? = nil
    ) {
        self.source = source
        self.buttons = buttons
        self.summary = summary
        self.isReplay = isReplay
        self.calibrationKey = calibrationKey
        self.gamepadAxes = gamepadAxes
    }
}

extension OpenedSource {
    /// What the live view draws for it: `phone`, `gamepad`, or `sensor` (a plain slab, also for a
    /// log and an IIO sensor).
    public var viewDevice: String {
        calibrationKey == "phone"
            ? "phone" : gamepadAxes.map { ["iio", "log"].contains($0.driver) ? "sensor" : "gamepad" } ?? "sensor"
    }
}
