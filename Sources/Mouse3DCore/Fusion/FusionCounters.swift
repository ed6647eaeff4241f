import RealModule

/// What an ``AttitudeEstimator`` has seen, for diagnostics.
public struct FusionCounters: Sendable, Equatable {
    /// Samples given to the filter.
    public var samples = 0
    /// Samples whose timestamp did not advance (equal or earlier than the one before): not integrated.
    public var timestampGlitches = 0
    /// Gaps longer than the maximum, integrated over the nominal period instead.
    public var gapsClamped = 0
    /// Gaps so long that the filter re-levelled from the accelerometer.
    public var resets = 0
    /// Samples whose accelerometer correction was skipped because of linear acceleration.
    public var accelerometerRejections = 0
    /// Samples with a non-finite or zero reading, which were ignored.
    public var invalidSamples = 0
}
