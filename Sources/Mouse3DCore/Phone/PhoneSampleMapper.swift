/// Turns a phone's readings into mouse3d's samples: rad/s and specific force in m/s² (+9.81 up at
/// rest) in the gamepad frame, the phone held in portrait, screen up, pointed with its top edge
/// (``GamepadMotionAxes/phone``), on this machine's monotonic clock (``PhoneClock``). Every reading
/// becomes a sample.
public struct PhoneSampleMapper: Sendable {
    /// The browser's conventions (standard until the page says otherwise).
    public var platform: PhonePlatform = .standard
    /// The clock mapping.
    public private(set) var clock = PhoneClock()

    public init() {}

    /// The samples of one message's `readings`, which arrived at `arrival` (monotonic ns).
    public mutating func samples(_ readings: [PhoneReading], arrival: Int64) -> [MotionSample] {
        let times = clock.map(readings.map(\.milliseconds), arrival: arrival)
        let sign = platform == .webKit ? -1.0 : 1.0
        var out: [MotionSample] = []
        out.reserveCapacity(readings.count)
        for (r, t) in zip(readings, times) {
            out.append(
                GamepadMotionAxes.phone.apply(
                    MotionSample(
                        timestampNanoseconds: t, angularVelocityRadiansPerSecond: r.rotationRate * (Double.pi / 180),
                        specificForceMetersPerSecondSquared: r.accelerationIncludingGravity * sign)))
        }
        return out
    }
}
