import RealModule

/// A 6-axis orientation filter: gyroscope strapdown integration, corrected towards gravity by an
/// accelerometer that is low-passed in the inertial frame, with rest detection and a Kalman estimate
/// of the gyroscope bias.
///
/// The structure follows the published description of VQF (D. Laidig and T. Seel, "VQF: Highly
/// accurate IMU orientation estimation with bias estimation and magnetic disturbance rejection",
/// Information Fusion 91, 2023), restricted to 6D, written for this project, with explicit handling
/// of irregular timestamps and of linear acceleration and impacts.
///
/// The estimate is `inclinationCorrection ⊗ gyroQuaternion`: the gyroscope alone moves
/// `gyroQuaternion` in a drifting inertial frame, and the accelerometer, low-passed in that frame,
/// steers `inclinationCorrection` so that the low-passed specific force points up.
///
/// Every sample given to ``update(_:)`` is processed. A value type: whoever owns it serialises access.
public struct AttitudeEstimator: Sendable {
    /// The tuning this filter was made with.
    public let parameters: AttitudeEstimatorParameters

    /// Counters of what the filter has seen.
    public internal(set) var counters = FusionCounters()

    /// Gyroscope integration in the inertial frame.
    @usableFromInline var gyroQuaternion = Quaternion.identity
    /// Rotation from the inertial frame to the level reference frame (heading is left alone).
    @usableFromInline var inclinationCorrection = Quaternion.identity

    /// The current gyroscope bias estimate, in rad/s.
    public internal(set) var gyroBiasRadiansPerSecond = SIMD3<Double>.zero
    /// Covariance of the bias estimate, in (0.01 °/s)², and of the scale estimate.
    @usableFromInline var biasScaleCovariance: BiasScaleCovariance
    /// The current estimate of the gyroscope's scale error (a reading is (1 + this) times the rate,
    /// plus the bias), as a fraction.
    public internal(set) var gyroScaleError = 0.0
    /// What a reading less the bias is multiplied by: 1 / (1 + ``gyroScaleError``).
    @usableFromInline var gyroScaleCorrection = 1.0
    /// The corrected rate summed over the bias's block (the scale's regressor is R·ω, low-passed with
    /// the rotation).
    @usableFromInline var biasBlockRate = SIMD3<Double>.zero

    @usableFromInline var accelerometerLowPass: ButterworthLowPass<SIMD3<Double>>
    @usableFromInline var restGyroLowPass: ButterworthLowPass<SIMD3<Double>>
    @usableFromInline var restAccelerometerLowPass: ButterworthLowPass<SIMD3<Double>>
    /// Low-pass of the rotation matrix (lanes 0–8, rows first), of R·bias (lanes 9–10) and of the
    /// horizontal rows of R·ω (lanes 11–12) and of the scale estimate times them (lanes 13–14).
    @usableFromInline var biasRotationLowPass: ButterworthLowPass<SIMD16<Double>>

    /// Short average of the horizontal part of the measured vertical, in the level frame.
    @usableFromInline var disturbance = SIMD2<Double>.zero
    /// Short average of the horizontal specific force in the level frame, in m/s², and the mean squares
    /// of that average and of the angular speed: the motion statistics behind the adaptive time constant.
    @usableFromInline var horizontalForce = SIMD2<Double>.zero
    @usableFromInline var horizontalForceStage = SIMD2<Double>.zero
    @usableFromInline var motionPower = SIMD2<Double>.zero
    /// Samples until the next Kalman step of the bias.
    @usableFromInline var biasUpdateCountdown = 0
    /// Sum and count of the attitude quaternion since the last Kalman step: its mean is what the bias's
    /// low-pass is fed, so every sample counts without a matrix and 11 filtered lanes per sample.
    @usableFromInline var biasBlockSum = SIMD4<Double>.zero
    @usableFromInline var biasBlockCount = 0
    /// Samples until the adaptive time constant is next reconsidered.
    @usableFromInline var adaptCountdown = 0
    /// The accelerometer low-pass time constant aimed at, in seconds.
    public internal(set) var accelerometerTimeConstantSeconds: Double
    /// The weight of the long low-pass in the blend of the two.
    @usableFromInline var longLowPassWeight = 0.0
    /// The accelerometer low-pass with the upper end of the adaptive range.
    @usableFromInline var accelerometerLongLowPass: ButterworthLowPass<SIMD3<Double>>
    /// How long corrections have been rejected without a break, in seconds.
    @usableFromInline var rejectedSeconds = 0.0
    @usableFromInline var restSeconds = 0.0
    /// Whether the device has been still long enough to count as resting.
    public internal(set) var isAtRest = false
    /// Whether the last sample's accelerometer correction was skipped (linear acceleration).
    public internal(set) var isRejectingAccelerometer = false

    /// The accelerometer's range per axis in use, in m/s² (nil: unknown).
    public internal(set) var accelerometerRangeMetersPerSecondSquared: Double?
    /// When each axis last read at the top and at the bottom of that range, in seconds.
    @usableFromInline var topSaturationSeconds = SIMD3<Double>(repeating: -.infinity)
    @usableFromInline var bottomSaturationSeconds = SIMD3<Double>(repeating: -.infinity)

    @usableFromInline var lastTimestampNanoseconds: Int64?
    /// The filter's estimate of the regular sample period, in seconds.
    public internal(set) var nominalPeriodSeconds: Double?
    @usableFromInline var tuning: Tuning

    /// Coefficients that depend on the sample period.
    @usableFromInline struct Tuning: Sendable {
        var accelerometer: ButterworthCoefficients
        var accelerometerLong: ButterworthCoefficients
        /// The accelerometer's (short) low-pass at the rate of the bias's Kalman steps.
        var biasLowPass: ButterworthCoefficients
        var rest: ButterworthCoefficients
        var biasInitialVariance: Double
        /// The Kalman step of the bias runs every this many samples (about every 20 ms): the bias moves
        /// over minutes and its inputs are low-passed over seconds, so a faster step adds only cost.
        var biasUpdateInterval: Int
        var biasProcessVariance: Double
        var biasMotionNoise: Double
        var biasVerticalNoise: Double
        var biasRestNoise: Double
        var scaleInitialVariance: Double
        var scaleProcessVariance: Double
        /// sin² of the disturbance angle, compared with the squared horizontal lean (nil: not compared).
        var disturbanceLimitSquared: Double?
        /// The squared magnitudes of the low-passed force that are corrected towards: 1 g less and more
        /// the rejection fraction, squared (parameters do not change, so neither do these).
        var acceptedForceSquared: ClosedRange<Double>
        /// sin² of the lean beyond which a sample is left out of the warm-up mean (15°).
        static let warmUpLeanLimitSquared = 0.258_819 * 0.258_819

        static func biasUpdateInterval(periodSeconds ts: Double) -> Int { max(1, Int(0.02 / ts)) }

        init(_ p: AttitudeEstimatorParameters, periodSeconds ts: Double) {
            let range = p.adaptiveTimeConstantRangeSeconds
            accelerometer = ButterworthCoefficients(
                timeConstantSeconds: range?.lowerBound ?? p.accelerometerTimeConstantSeconds, samplePeriodSeconds: ts)
            accelerometerLong = ButterworthCoefficients(
                timeConstantSeconds: range?.upperBound ?? p.accelerometerTimeConstantSeconds, samplePeriodSeconds: ts)
            rest = ButterworthCoefficients(timeConstantSeconds: p.restTimeConstantSeconds, samplePeriodSeconds: ts)
            // Variances in (0.01 °/s)², as in the paper, so that the numbers stay near 1.
            func variance(_ sigmaDegreesPerSecond: Double) -> Double {
                (sigmaDegreesPerSecond * 100) * (sigmaDegreesPerSecond * 100)
            }
            biasInitialVariance = variance(p.biasSigmaInitialDegreesPerSecond)
            biasUpdateInterval = Self.biasUpdateInterval(periodSeconds: ts)
            biasLowPass = ButterworthCoefficients(
                timeConstantSeconds: range?.lowerBound ?? p.accelerometerTimeConstantSeconds,
                samplePeriodSeconds: ts * Double(biasUpdateInterval))
            // The process noise accumulates over the interval between two Kalman steps.
            biasProcessVariance = variance(0.1) * ts * Double(biasUpdateInterval) / p.biasForgettingTimeSeconds
            let motion = variance(p.biasSigmaMotionDegreesPerSecond)
            biasMotionNoise = motion * motion / biasProcessVariance + motion
            biasVerticalNoise = biasMotionNoise / max(p.biasVerticalForgettingFactor, 1e-10)
            let rest = variance(p.biasSigmaRestDegreesPerSecond)
            biasRestNoise = rest * rest / biasProcessVariance + rest
            scaleInitialVariance = p.gyroScaleSigmaInitial * p.gyroScaleSigmaInitial
            scaleProcessVariance = 1e-6 * ts * Double(biasUpdateInterval) / p.gyroScaleForgettingTimeSeconds
            let g = standardGravityMetersPerSecondSquared
            let fraction = p.linearAccelerationRejectionFraction
            let low = max(1 - fraction, 0) * g
            let high = (1 + fraction) * g
            acceptedForceSquared = low * low...high * high
            disturbanceLimitSquared = p.disturbanceAngleRadians.map {
                let sine = Double.sin($0)
                return sine * sine
            }
        }
    }

    /// The period assumed until two timestamps have been seen, in seconds.
    @usableFromInline static let provisionalPeriodSeconds = 0.01

    /// A filter with the given tuning, at the identity attitude until the first sample.
    public init(parameters: AttitudeEstimatorParameters = AttitudeEstimatorParameters()) {
        self.parameters = parameters
        accelerometerRangeMetersPerSecondSquared = parameters.accelerometerRangeMetersPerSecondSquared
        let ts = Self.provisionalPeriodSeconds
        accelerometerTimeConstantSeconds = parameters.accelerometerTimeConstantSeconds
        tuning = Tuning(parameters, periodSeconds: ts)
        biasScaleCovariance = BiasScaleCovariance(bias: tuning.biasInitialVariance, scale: tuning.scaleInitialVariance)
        accelerometerLowPass = ButterworthLowPass(
            warmUpSamples: Int(parameters.accelerometerTimeConstantSeconds / ts))
        accelerometerLongLowPass = ButterworthLowPass(
            warmUpSamples: Int(parameters.accelerometerTimeConstantSeconds / ts))
        restGyroLowPass = ButterworthLowPass(warmUpSamples: Int(parameters.restTimeConstantSeconds / ts))
        restAccelerometerLowPass = ButterworthLowPass(warmUpSamples: Int(parameters.restTimeConstantSeconds / ts))
        biasRotationLowPass = ButterworthLowPass(
            warmUpSamples: Int(parameters.accelerometerTimeConstantSeconds / (ts * Double(tuning.biasUpdateInterval))))
    }

    /// Starts the bias estimate from a calibration: the bias measured at rest, trusted to within
    /// `sigmaDegreesPerSecond` (the estimate keeps learning at rest and in motion from there).
    public mutating func startFromBias(_ bias: SIMD3<Double>, sigmaDegreesPerSecond: Double = 0.05) {
        let limit = SIMD3(repeating: parameters.biasLimitRadiansPerSecond)
        gyroBiasRadiansPerSecond = bias.clamped(lowerBound: -limit, upperBound: limit)
        let variance = (sigmaDegreesPerSecond * 100) * (sigmaDegreesPerSecond * 100)
        biasScaleCovariance = BiasScaleCovariance(
            bias: min(variance, tuning.biasInitialVariance), scale: biasScaleCovariance.r3.w)
    }

    /// The range a device reports for its accelerometer per axis, in m/s²; used unless the parameters
    /// give one. Saturated readings are then cut alike on both sides (see ``desaturated(_:range:)``).
    public mutating func useReportedAccelerometerRange(_ range: Double?) {
        accelerometerRangeMetersPerSecondSquared =
            parameters.accelerometerRangeMetersPerSecondSquared
            ?? range.flatMap { $0.isFinite && $0 >= 1.5 * standardGravityMetersPerSecondSquared ? $0 : nil }
        forgetSaturation()
    }

    /// Forgets when each axis last saturated (after a clock step, a re-levelling or a new range).
    mutating func forgetSaturation() {
        topSaturationSeconds = SIMD3(repeating: -.infinity)
        bottomSaturationSeconds = SIMD3(repeating: -.infinity)
    }

    /// The current attitude estimate.
    @inlinable
    public var attitude: Attitude { Attitude(quaternion: inclinationCorrection * gyroQuaternion) }

    /// The current attitude quaternion (unit, scalar first).
    @inlinable
    public var quaternion: Quaternion { (inclinationCorrection * gyroQuaternion).normalized }
}
