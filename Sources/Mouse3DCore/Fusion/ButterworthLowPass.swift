import RealModule

/// A second-order Butterworth low-pass over a vector of `Double`s.
///
/// Until `τ / Ts` samples have been seen it outputs their running mean, then starts from the steady
/// state of that mean, so the output is meaningful from the very first sample instead of rising from
/// zero.
public struct ButterworthLowPass<Value: SIMD>: Sendable where Value.Scalar == Double, Value: Sendable {
    /// The filter's delay-line state; only meaningful once `warmUpRemaining` is zero.
    @usableFromInline var state0: Value = .zero
    @usableFromInline var state1: Value = .zero
    /// The running sum during warm-up.
    @usableFromInline var warmUpSum: Value = .zero
    @usableFromInline var warmUpCount = 0
    @usableFromInline var warmUpLength: Int

    /// The latest output.
    @usableFromInline var _output: Value = .zero
    /// The latest output.
    @inlinable public var output: Value { _output }

    /// A filter that averages its first `warmUpSamples` inputs before it starts filtering.
    public init(warmUpSamples: Int) {
        warmUpLength = max(1, warmUpSamples)
    }

    /// Forgets everything; the next input starts a new warm-up.
    @inlinable
    public mutating func reset() {
        warmUpCount = 0
        warmUpSum = .zero
    }

    /// Whether nothing has been fed since creation or the last reset.
    @inlinable
    public var isEmpty: Bool { warmUpCount == 0 }

    /// Whether the warm-up average is still being collected.
    @inlinable
    public var isWarmingUp: Bool { warmUpCount < warmUpLength }

    /// Feeds `x` and returns the filtered value.
    @inlinable @inline(__always)
    @discardableResult
    public mutating func step(_ x: Value, _ k: ButterworthCoefficients) -> Value {
        if warmUpCount < warmUpLength {
            warmUpCount += 1
            warmUpSum += x
            let mean = warmUpSum / Double(warmUpCount)
            if warmUpCount == warmUpLength {
                // Steady state for a constant input equal to the mean.
                state0 = mean * (1 - k.b0)
                state1 = mean * (k.b2 - k.a2)
            }
            _output = mean
            return mean
        }
        let y = k.b0 * x + state0
        state0 = k.b1 * x - k.a1 * y + state1
        state1 = k.b2 * x - k.a2 * y
        _output = y
        return y
    }
}

extension ButterworthLowPass {
    /// Changes how many samples the warm-up averages; only while the warm-up is still running.
    @inlinable
    public mutating func setWarmUpLength(_ samples: Int) {
        guard isWarmingUp else { return }
        // Never below what has been averaged, so the switch to filtering still happens in `step`.
        warmUpLength = max(1, samples, warmUpCount + 1)
    }
}
