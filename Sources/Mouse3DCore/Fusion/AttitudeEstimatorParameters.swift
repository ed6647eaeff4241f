/// Tuning of ``AttitudeEstimator``. The defaults suit hand-held and desk use at 50–1000 Hz.
public struct AttitudeEstimatorParameters: Sendable, Equatable {
    /// Time constant of the accelerometer low-pass in the inertial frame, in seconds. Larger trusts the
    /// gyroscope longer and rejects linear acceleration better.
    public var accelerometerTimeConstantSeconds = 2.0

    /// The range the accelerometer time constant adapts within, in seconds, or `nil` to keep
    /// ``accelerometerTimeConstantSeconds`` fixed. See ``adaptiveTimeConstantGain``.
    public var adaptiveTimeConstantRangeSeconds: ClosedRange<Double>? = 2.0...3.5
    /// The adaptive time constant is this gain times the cube root of the ratio of the sensor's
    /// horizontal linear acceleration (RMS, m/s²) to its angular speed (RMS, rad/s), both measured over
    /// ``motionStatisticsTimeConstantSeconds``: a longer average where translation would leak through
    /// the low-pass, a shorter one where gyroscope errors grow with fast turns.
    public var adaptiveTimeConstantGain = 3.5
    /// Time constant of each of the two first-order low-passes the horizontal specific force goes
    /// through before its mean square is taken, in seconds.
    public var translationFilterTimeConstantSeconds = 0.2
    /// Time constant of the motion statistics that steer the adaptive time constant, in seconds.
    public var motionStatisticsTimeConstantSeconds = 3.0
    /// Angular speed added to the measured one so that the ratio stays finite at rest, in rad/s.
    public var angularSpeedFloorRadiansPerSecond = 0.05

    /// Estimate gyroscope bias while the device moves (from the accelerometer corrections).
    public var motionBiasEstimation = true
    /// Estimate gyroscope bias while the device rests.
    public var restBiasEstimation = true
    /// Estimate the gyroscope's scale error while the device turns, from the accelerometer corrections
    /// and together with the motion bias: a gyroscope that reads 0.5% slow (as the BROAD trials' sensor
    /// does against its optical truth, on every axis alike, as a sample clock that runs 0.5% fast would
    /// make it) tilts the estimate by 1.5 °/s while it turns at 300 °/s, an error the accelerometer
    /// pulls back only over its time constant; and over many turns about the vertical it is heading.
    /// One scale for the three axes: one per axis, learnt from the same corrections, wandered on
    /// every trial (BROAD heading 2.57–3.46° against 2.22° with one scale).
    public var gyroScaleEstimation = true
    /// Standard deviation of the initial scale uncertainty, as a fraction.
    public var gyroScaleSigmaInitial = 0.005
    /// The scale estimate is clipped to ± this fraction.
    public var gyroScaleLimit = 0.03
    /// Time for the scale uncertainty to grow back by 0.1%, in seconds.
    public var gyroScaleForgettingTimeSeconds = 100.0

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
    /// radians (`nil`: never): a sustained push that barely changes the magnitude (a vehicle, a swing).
    public var disturbanceAngleRadians: Double? = 15.0 * .pi / 180
    /// Time constant of that average, in seconds. Long enough that a hand shaking hard at 1 Hz or
    /// faster (several g back and forth, averaging to zero) does not lean it by 15°: with 0.5 s it did,
    /// corrections were skipped for seconds while the hand shook, and gyroscope scale errors built up
    /// (on synthetic shaking, heading errors up to 6× VQF's). With 2 s no hand-held recording or
    /// synthetic hand trips it, and an 8 s push of 0.6 g sideways still does.
    public var disturbanceTimeConstantSeconds = 2.0
    /// After this long of continuous rejection the correction resumes anyway, in seconds, so that an
    /// estimate that is really wrong (a saturated gyroscope) is still pulled back.
    public var rejectionRecoverySeconds = 10.0
    /// A specific force larger than this many g is shortened to it before it enters the low-pass, or
    /// `nil` (the default) for no limit. Off by default: shortened, a back-and-forth motion or a tap
    /// and its rebound no longer average to zero, and the low-pass takes what is left for gravity (on
    /// synthetic shaking at up to 6 g the inclination error was 5× VQF's with a 4 g limit). Useful
    /// only against a sensor that glitches (single samples of tens of g that no motion made).
    public var impactLimitStandardGravities: Double?

    /// The accelerometer's range per axis, in m/s², when the source knows it (evdev's absinfo, IIO's
    /// scale): a reading at the limit is saturated, not a measurement. See ``AttitudeEstimator``'s
    /// handling of saturation. `nil`: readings are taken as they come.
    public var accelerometerRangeMetersPerSecondSquared: Double?

    /// A gap between samples longer than this is not integrated as it is: the gyroscope is integrated
    /// over the nominal sample period instead, in seconds.
    public var maximumGapSeconds = 0.25
    /// After a gap longer than this the filter re-levels from the accelerometer (bias is kept).
    public var resetGapSeconds = 2.0

    /// The defaults.
    public init() {}
}
