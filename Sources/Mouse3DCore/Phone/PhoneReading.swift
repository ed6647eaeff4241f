/// One `devicemotion` event as the page read it.
public struct PhoneReading: Sendable, Equatable {
    /// The event's `timeStamp`: milliseconds on the page's clock.
    public var milliseconds: Double
    /// `rotationRate` (alpha, beta, gamma), in °/s.
    public var rotationRate: SIMD3<Double>
    /// `accelerationIncludingGravity` (x, y, z), in m/s².
    public var accelerationIncludingGravity: SIMD3<Double>

    /// A reading.
    public init(milliseconds: Double, rotationRate: SIMD3<Double>, accelerationIncludingGravity: SIMD3<Double>) {
        self.milliseconds = milliseconds
        self.rotationRate = rotationRate
        self.accelerationIncludingGravity = accelerationIncludingGravity
    }
}
