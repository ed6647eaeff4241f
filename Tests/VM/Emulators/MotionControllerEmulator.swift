/// What every emulated motion controller offers the device tests, whatever its driver: the name of
/// the motion device its driver makes, a stream of motion given in mouse3d's gamepad frame (x toward
/// the triggers, y left, z up out of the face; each emulator turns it into its own driver's axes, as
/// the hardware would report it), and unplugging.
public protocol MotionControllerEmulator: AnyObject, Sendable {
    /// The name of the evdev motion device the driver makes for it.
    var motionName: String { get }
    /// The model, for messages.
    var modelName: String { get }
    /// Streams `script`, in mouse3d's frame, until stopped or unplugged; returns at once. At
    /// `gate`'s closed gates the script holds (``ScriptGate``).
    func stream(_ script: MotionScript, gate: ScriptGate)
    /// Stops the stream.
    func stopStreaming()
    /// Unplugs the controller and waits until the kernel removed its devices.
    func unplug() throws
    /// For a controller whose reports carry no clock of their own (the driver stamps them from
    /// their arrivals): when each report of the stream was due and when it went (monotonic
    /// nanoseconds). Nil for controllers with a device clock (a late report says how late).
    var reportTimes: [(due: UInt64, sent: UInt64)]? { get }
    /// How far into the script the stream has sent, in script seconds.
    var scriptSecondsSent: Double { get }
}

extension MotionControllerEmulator {
    /// Streams `script` with no gates.
    public func stream(_ script: MotionScript) { stream(script, gate: ScriptGate()) }

    public var reportTimes: [(due: UInt64, sent: UInt64)]? { nil }
}

extension MotionScript {
    /// The same script with every rate and force vector turned by `axes` (for example into a
    /// driver's axes).
    public func converted(_ axes: (SIMD3<Double>) -> SIMD3<Double>) -> MotionScript {
        MotionScript(
            steps.map {
                .init(
                    seconds: $0.seconds, degreesPerSecond: axes($0.degreesPerSecond),
                    metersPerSecondSquared: axes($0.metersPerSecondSquared))
            })
    }
}

extension GamepadEmulator: MotionControllerEmulator {
    public var motionName: String { name + " Motion Sensors" }
    public var modelName: String {
        name == DualSenseEmulator.edgeName ? "DualSense Edge" : self is DualSenseEmulator ? "DualSense" : "DualShock 4"
    }

    /// The Sony drivers' axes (hid-playstation and hid-sony: x right, y up out of the face, z toward
    /// the player) of a vector in mouse3d's gamepad frame.
    public static func kernelAxes(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(-v.y, v.z, -v.x) }

    /// 250 reports a second, each with the mean rate since the one before.
    public func stream(_ script: MotionScript, gate: ScriptGate) {
        startStreaming(script.converted(Self.kernelAxes), hertz: 250, integrating: true, gate: gate)
    }
}

extension SwitchControllerEmulator: MotionControllerEmulator {
    public var motionName: String { model.motionName }
    public var modelName: String { model.rawValue }
    public func stream(_ script: MotionScript, gate: ScriptGate) {
        startStreaming(script.converted(Self.kernelAxes), gate: gate)
    }
}
