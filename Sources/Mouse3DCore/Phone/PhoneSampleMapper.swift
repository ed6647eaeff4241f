/// Turns a phone's readings into mouse3d's samples: rad/s and specific force in m/s² (+9.81 up at
/// rest) in the gamepad frame, the phone pointed with the screen's top as the page is laid out: its
/// top edge in portrait, its far side in landscape (``GamepadMotionAxes/phone`` on the screen's
/// axes), on this machine's monotonic clock (``PhoneClock``). Every reading becomes a sample.
///
/// Browsers give readings in the device's own frame whatever the screen's orientation (x to the
/// right and y to the top of the device held in portrait). With the screen turned by
/// `screenAngle` (the Screen Orientation API's angle: the device turned that far counterclockwise,
/// the screen's content the other way), the screen's right and up are the device's axes turned by
/// that angle about z: at 90°, right is the device's −y and up its +x (its right edge, now the far
/// side).
public struct PhoneSampleMapper: Sendable {
    /// The browser's conventions (standard until the page says otherwise).
    public var platform: PhonePlatform = .standard
    /// The clock mapping.
    public private(set) var clock = PhoneClock()
    /// The screen's orientation angle, degrees (0, 90, 180, 270).
    public var screenAngle = 0
    /// The screen's axes → mouse3d's: as the page is held (``GamepadMotionAxes/phone``), or a stored
    /// setup (`calibrate --axes`).
    public var axes = GamepadMotionAxes.phone

    public init() {}

    /// Readings all slower than this (°/s) are a still phone's, when its clock's mapping may move.
    public static let stillDegreesPerSecond = 5.0

    /// The samples of one message's `readings`, which arrived at `arrival` (monotonic ns).
    public mutating func samples(_ readings: [PhoneReading], arrival: Int64) -> [MotionSample] {
        // Still: no reading turned faster than a resting phone's gyroscope reads with its offset.
        let still = readings.allSatisfy { r in
            (r.rotationRate * r.rotationRate).sum() < Self.stillDegreesPerSecond * Self.stillDegreesPerSecond
        }
        let times = clock.map(readings.map(\.milliseconds), arrival: arrival, still: still)
        let sign = platform == .webKit ? -1.0 : 1.0
        // The screen's axes from the device's: a turn by the angle about z (exact at right angles).
        let (c, s): (Double, Double) =
            switch screenAngle {
            case 90: (0, 1)
            case 180: (-1, 0)
            case 270: (0, -1)
            default: (1, 0)
            }
        func screen(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(v.x * c - v.y * s, v.x * s + v.y * c, v.z) }
        var out: [MotionSample] = []
        out.reserveCapacity(readings.count)
        for (r, t) in zip(readings, times) {
            out.append(
                axes.apply(
                    MotionSample(
                        timestampNanoseconds: t,
                        angularVelocityRadiansPerSecond: screen(r.rotationRate * (Double.pi / 180)),
                        specificForceMetersPerSecondSquared: screen(r.accelerationIncludingGravity * sign))))
        }
        return out
    }
}
