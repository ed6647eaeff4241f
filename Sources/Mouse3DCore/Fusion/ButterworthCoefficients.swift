import RealModule

/// Coefficients of a second-order Butterworth low-pass filter (direct form II transposed, a0 = 1).
public struct ButterworthCoefficients: Sendable, Equatable {
    /// Feed-forward coefficients.
    public var b0: Double, b1: Double, b2: Double
    /// Feedback coefficients.
    public var a1: Double, a2: Double
    /// The sample period these coefficients were made for, in seconds.
    public var samplePeriodSeconds: Double

    /// A filter whose non-oscillating step response has the time constant `timeConstantSeconds`.
    ///
    /// The cut-off frequency is `√2 / (2π τ)`, discretised with the bilinear transform (prewarped).
    public init(timeConstantSeconds tau: Double, samplePeriodSeconds ts: Double) {
        let cutoffHertz = 2.0.squareRoot() / (2 * Double.pi * tau)
        let c = Double.tan(Double.pi * cutoffHertz * ts)
        let d = c * c + 2.0.squareRoot() * c + 1
        b0 = c * c / d
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (c * c - 1) / d
        a2 = (1 - 2.0.squareRoot() * c + c * c) / d
        samplePeriodSeconds = ts
    }
}
