/// Tuning of ``AttitudeEstimator``. The defaults suit hand-held and desk use at 50–1000 Hz.
public struct AttitudeEstimatorParameters: Sendable, Equatable {
    /// Time constant of the accelerometer low-pass in the inertial frame, in seconds. Larger trusts the
    /// gyroscope longer and rejects linear acceleration better.
    public var accelerometerTimeConstantSeconds = 2.0

    /// The range the accelerometer time constant adapts within, in seconds, or `nil` to keep
    /// ``accelerometerTimeConstantSeconds`` fixed. See ``adaptiveTimeConstantGain``.
    public var adaptiveTimeConstantRangeSeconds: ClosedRange<Double>? = 1.5...3.5
    /// The adaptive time constant is this gain times the cube root of the ratio of the sensor's
    /// horizontal linear acceleration (RMS, m/s²) to its angular speed (RMS, rad/s), both measured over
    /// ``motionStatisticsTimeConstantSeconds``: a longer average where translation would leak through
    /// the low-pass, a shorter one where gyroscope errors grow with fast turns.
    public var adaptiveTimeConstantGain = 3.5
    /// Time constant of each of the two first-order low-passes the horizontal specific force goes
    /// through before its mean square is taken, in seconds.
    public var translationFilterTimeConstantSeconds = 0.4
    /// Time constant of the motion statistics that steer the adaptive time constant, in seconds.
    public var motionStatisticsTimeConstantSeconds = 3.0
    /// Angular speed added to the measured one so that the ratio stays finite at rest, in rad/s.
    public var angularSpeedFloorRadiansPerSecond = 0.05

    /// Estimate gyroscope bias while the device moves (from the accelerometer corrections).
    public var motionBiasEstimation = true
    /// Estimate gyroscope bias while the device rests.
    public var restBiasEstimation = true

    /// The bias estimate is clipped to ± this, in rad/s (2 °/s).
    public var biasLimitRadiansPerSecond = 2.0 * .pi / 180
    /// Standard deviation of the initial bias uncertainty, in °/s.
    public var biasSigmaInitialDegreesPerSecond = 0.5
    /// Time for the bias uncertainty to grow back by 0.1 °/s, in seconds.
    public var biasForgettingTimeSeconds = 100.0
    /// Measurement noise of the motion bias update, in °/s.
    public var biasSigmaMotionDegreesPerSecond = 0.1
    /// How much more slowly the vertical bias (unobservable during motion) is updated.
    public var biasVerticalForgettingFactor = 0.0001
    /// Measurement noise of the rest bias update, in °/s.
    public var biasSigmaRestDegreesPerSecond = 0.03

    /// Time constant of the rest detector's low-pass, in seconds.
    public var restTimeConstantSeconds = 0.5
    /// Gyroscope deviation below which the device may be at rest, in rad/s (2 °/s).
    public var restGyroscopeThresholdRadiansPerSecond = 2.0 * .pi / 180
    /// Accelerometer deviation below which the device may be at rest, in m/s².
    public var restAccelerometerThresholdMetersPerSecondSquared = 0.5
    /// How long both must stay below their thresholds before rest is declared, in seconds.
    public var restMinimumDurationSeconds = 1.5

    /// The accelerometer correction is skipped while the low-passed specific force differs from
    /// gravity by more than this fraction: sustained linear acceleration (a vehicle, a swing).
    public var linearAccelerationRejectionFraction = 0.1
    /// The accelerometer correction is also skipped while the specific force, averaged over
    /// ``disturbanceTimeConstantSeconds``, points more than this far from the estimated vertical, in
    /// radians: sustained horizontal acceleration, which barely changes the magnitude.
    public var disturbanceAngleRadians = 15.0 * .pi / 180
    /// Time constant of that short average, in seconds.
    public var disturbanceTimeConstantSeconds = 0.5
    /// After this long of continuous rejection the correction resumes anyway, in seconds, so that an
    /// estimate that is really wrong (a saturated gyroscope) is still pulled back.
    public var rejectionRecoverySeconds = 10.0
    /// A specific force larger than this many g (an impact, a tap) is shortened to it before it enters
    /// the low-pass, so one spike cannot tilt the estimate.
    public var impactLimitStandardGravities = 4.0

    /// A gap between samples longer than this is not integrated as it is: the gyroscope is integrated
    /// over the nominal sample period instead, in seconds.
    public var maximumGapSeconds = 0.25
    /// After a gap longer than this the filter re-levels from the accelerometer (bias is kept).
    public var resetGapSeconds = 2.0

    /// The defaults.
    public init() {}
}
