import ArgumentParser
import Mouse3DCore

/// Gyro-mouse tuning for `receive --uinput pointer`; each flag overrides the configuration's
/// [pointer] setting.
struct PointerOptions: ParsableArguments {
    @Option(help: "Pointer counts (pixels, with a flat pointer profile) per degree of turn (default 20).")
    var sensitivity: Double?

    @Option(help: "Natural sensitivity: degrees of turn that cross the screen's width (overrides --sensitivity).")
    var screenTurn: Double?

    @Option(help: "The screen's width in pixels, for --screen-turn (default 1920).")
    var screenWidth: Double?

    @Option(
        help:
            "Which turns move the pointer: local (the controller's own axes), player (sideways about gravity whatever the grip) or world (default)."
    )
    var gyroSpace: GyroSpace?

    @Option(help: "Below this speed (°/s) motion is scaled down in proportion, to hide tremor (0: off).")
    var tightening: Double?

    @Option(help: "Below this speed (°/s) motion is averaged over 0.1 s; above twice it, passed through (0: off).")
    var smoothing: Double?

    @Option(help: "Acceleration as LOW:HIGH:FACTOR: sensitivity rises from 1x at LOW °/s to FACTORx at HIGH °/s.")
    var acceleration: String?

    @Flag(inversion: .prefixedNo, help: "Mirror horizontal motion.")
    var invertX: Bool?

    @Flag(inversion: .prefixedNo, help: "Mirror vertical motion.")
    var invertY: Bool?

    @Flag(inversion: .prefixedNo, help: "Exchange the axes.")
    var swapAxes: Bool?

    func validate() throws {
        if let acceleration, PointerOptions.curve(acceleration) == nil {
            throw ValidationError(
                "--acceleration must be LOW:HIGH:FACTOR with 0 <= LOW < HIGH and FACTOR > 0, e.g. 20:200:3.")
        }
    }

    func addFlags(to layer: inout ConfigurationLayer) throws {
        if let sensitivity {
            try layer.set(.pointerSensitivity, sensitivity, origin: .flag("--sensitivity"))
        }
        if let screenTurn { try layer.set(.pointerScreenTurn, screenTurn, origin: .flag("--screen-turn")) }
        if let screenWidth {
            try layer.set(.pointerScreenWidth, screenWidth, origin: .flag("--screen-width"))
        }
        if let gyroSpace {
            try layer.set(.pointerGyroSpace, gyroSpace.rawValue, origin: .flag("--gyro-space"))
        }
        if let tightening { try layer.set(.pointerTightening, tightening, origin: .flag("--tightening")) }
        if let smoothing { try layer.set(.pointerSmoothing, smoothing, origin: .flag("--smoothing")) }
        if let acceleration {
            try layer.set(.pointerAcceleration, acceleration, origin: .flag("--acceleration"))
        }
        if let invertX { try layer.set(.pointerInvertX, invertX, origin: .flag("--[no-]invert-x")) }
        if let invertY { try layer.set(.pointerInvertY, invertY, origin: .flag("--[no-]invert-y")) }
        if let swapAxes { try layer.set(.pointerSwapAxes, swapAxes, origin: .flag("--[no-]swap-axes")) }
    }

    static func curve(_ text: String) -> (low: Double, high: Double, factor: Double)? {
        PointerMapping.accelerationCurve(text)
    }

    /// The pointer mapping of a configuration (an acceleration curve that does not parse is an
    /// error naming where it was set).
    static func mapping(_ c: Configuration) throws -> PointerMapping {
        var m = PointerMapping()
        m.countsPerDegree = c[.pointerSensitivity]
        let screenTurn = c[.pointerScreenTurn]
        if screenTurn > 0 { m.setScreen(turnDegrees: screenTurn, widthPixels: c[.pointerScreenWidth]) }
        m.tighteningDegreesPerSecond = c[.pointerTightening]
        m.smoothingDegreesPerSecond = c[.pointerSmoothing]
        if let text = c[.pointerAcceleration] {
            guard let curve = curve(text) else {
                throw CommandFailure(
                    "\(c.invalid(.pointerAcceleration, "'\(text)' is not LOW:HIGH:FACTOR with 0 <= LOW < HIGH and FACTOR > 0"))"
                )
            }
            m.accelerationLowDegreesPerSecond = curve.low
            m.accelerationHighDegreesPerSecond = curve.high
            m.accelerationFactor = curve.factor
        }
        m.invertX = c[.pointerInvertX]
        m.invertY = c[.pointerInvertY]
        m.swapAxes = c[.pointerSwapAxes]
        m.gyroSpace = GyroSpace(rawValue: c[.pointerGyroSpace] ?? "world") ?? .world
        return m
    }
}

extension GyroSpace: ExpressibleByArgument {}
