import RealModule

/// How a gyro mouse turns angular motion into pointer counts, with what the best gyro-aiming tools
/// offer: tightening of very small motions, smoothing of tiny motions only, an acceleration curve,
/// inversion and swapping, and the fractional remainder kept between events.
public struct PointerMapping: Sendable, Equatable {
    /// Pointer counts per degree of turn at the base sensitivity.
    public var countsPerDegree = 20.0
    /// Below this speed (°/s) motion is scaled down in proportion (speed / threshold), so hand
    /// tremor does not move the pointer; 0 turns tightening off.
    public var tighteningDegreesPerSecond = 0.0
    /// Below this speed (°/s) motion is averaged over ``smoothingWindowSeconds``; above twice it,
    /// passed through; blended between. 0 turns smoothing off.
    public var smoothingDegreesPerSecond = 0.0
    /// The averaging window of smoothing, in seconds.
    public var smoothingWindowSeconds = 0.1
    /// Acceleration: sensitivity rises from 1× at ``accelerationLowDegreesPerSecond`` to
    /// ``accelerationFactor``× at ``accelerationHighDegreesPerSecond``.
    public var accelerationLowDegreesPerSecond = 0.0
    /// See ``accelerationLowDegreesPerSecond``.
    public var accelerationHighDegreesPerSecond = 0.0
    /// The sensitivity multiplier at and above the high speed (1: no acceleration).
    public var accelerationFactor = 1.0
    /// Mirror the horizontal axis.
    public var invertX = false
    /// Mirror the vertical axis.
    public var invertY = false
    /// Exchange the axes (yaw drives vertical, pitch horizontal).
    public var swapAxes = false
    /// Which turns move the pointer (GyroWiki's gyro space).
    public var gyroSpace = GyroSpace.world

    /// The defaults: 20 counts per degree, no tightening, smoothing or acceleration.
    public init() {}

    /// Natural sensitivity (GyroWiki's "real world" sensitivity): a turn of `degrees` moves the
    /// pointer across `pixels` (a screen's width), at the base speed. A flat pointer profile on the
    /// desktop makes counts pixels.
    public mutating func setScreen(turnDegrees degrees: Double, widthPixels pixels: Double) {
        countsPerDegree = pixels / degrees
    }

    /// Degrees of turn that cross `pixels` at the base sensitivity.
    public func turnDegrees(acrossPixels pixels: Double) -> Double { pixels / countsPerDegree }
}

extension PointerMapping {
    /// Parses an acceleration curve `LOW:HIGH:FACTOR` (°/s, °/s, times): nil unless
    /// 0 <= LOW < HIGH and FACTOR > 0.
    public static func accelerationCurve(_ text: String) -> (low: Double, high: Double, factor: Double)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 3, let low = parts[0], let high = parts[1], let factor = parts[2],
            low >= 0, high > low, factor > 0, high.isFinite, factor.isFinite
        else { return nil }
        return (low, high, factor)
    }
}
