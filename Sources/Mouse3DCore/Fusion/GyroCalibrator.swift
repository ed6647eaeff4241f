import RealModule

/// Measures a gyroscope's bias while the device is held still: collects samples, and starts over
/// whenever the device moves. Pure: feed it samples, read its state.
public struct GyroCalibrator: Sendable {
    /// How long the device must stay still, in seconds.
    public let requiredSeconds: Double
    /// A sample whose angular velocity differs from the running mean by more than this counts as
    /// motion, in rad/s (3 °/s: far above a gyroscope's noise, far below a hand's tremor).
    public let motionThresholdRadiansPerSecond: Double
    /// A change of the specific force from its first value larger than this counts as motion, in m/s².
    public let accelerometerThresholdMetersPerSecondSquared: Double

    /// What the last sample did.
    public enum Progress: Sendable, Equatable {
        /// Still collecting; the fraction of the required time done.
        case collecting(Double)
        /// The device moved: collection started over.
        case moved
        /// Enough still time: the measured bias is in ``result``.
        case done
    }

    private var count = 0
    private var mean = SIMD3<Double>.zero
    private var squares = SIMD3<Double>.zero
    private var firstForce: SIMD3<Double>?
    private var firstTime: Int64?
    private var lastTime: Int64 = 0
    /// How many times motion made it start over.
    public private(set) var restarts = 0
    /// The result once ``Progress/done``.
    public private(set) var result: (bias: SIMD3<Double>, samples: Int, noise: Double)?

    /// A calibrator that needs `seconds` of stillness.
    public init(seconds: Double = 5, motionThresholdDegreesPerSecond: Double = 3, accelerometerThreshold: Double = 0.3)
    {
        requiredSeconds = seconds
        motionThresholdRadiansPerSecond = motionThresholdDegreesPerSecond * .pi / 180
        accelerometerThresholdMetersPerSecondSquared = accelerometerThreshold
    }

    /// Takes one sample.
    public mutating func add(_ sample: MotionSample) -> Progress {
        if result != nil { return .done }
        let gyro = sample.angularVelocityRadiansPerSecond
        let force = sample.specificForceMetersPerSecondSquared
        if count >= 10 {
            let deviation = gyro - mean
            let moved =
                (deviation * deviation).sum() > motionThresholdRadiansPerSecond * motionThresholdRadiansPerSecond
                || length(force - (firstForce ?? force)) > accelerometerThresholdMetersPerSecondSquared
            if moved {
                restart()
                return .moved
            }
        }
        if firstTime == nil {
            firstTime = sample.timestampNanoseconds
            firstForce = force
        }
        lastTime = sample.timestampNanoseconds
        count += 1
        let delta = gyro - mean
        mean += delta / Double(count)
        squares += delta * (gyro - mean)
        let elapsed = Double(lastTime - (firstTime ?? lastTime)) * 1e-9
        if elapsed >= requiredSeconds && count >= 20 {
            let variance = squares / Double(count - 1)
            result = (mean, count, ((variance.x + variance.y + variance.z) / 3).squareRoot())
            return .done
        }
        return .collecting(min(1, elapsed / requiredSeconds))
    }

    private mutating func restart() {
        restarts += 1
        count = 0
        mean = .zero
        squares = .zero
        firstForce = nil
        firstTime = nil
    }
}
