/// The fusion stage of a pipeline: every sample updates the attitude estimate, and the result goes
/// out relative to the recentred zero, with the clutch bit while motion is enabled and the buttons
/// held. Recenter, clutch and clicks come from gamepad buttons or SIGUSR1.
public struct MotionFusion: Sendable {
    private var estimator: AttitudeEstimator
    /// Clutch and recenter.
    public private(set) var gestures: MotionGestures
    /// Click and recenter bits currently held (the clutch bit comes from ``gestures``).
    public private(set) var heldButtons: ButtonState = []
    /// The stream the updates belong to.
    public let stream: StreamLabel
    private var sequence: UInt64 = 0

    /// A fusion with these filter parameters and clutch mode (nil: no clutch, motion always on),
    /// starting from a calibrated gyroscope bias if there is one.
    public init(
        parameters: AttitudeEstimatorParameters, clutchMode: MotionGestures.ClutchMode? = nil, stream: StreamLabel = .local,
        calibration: GyroCalibration? = nil
    ) {
        estimator = AttitudeEstimator(parameters: parameters)
        if let calibration { estimator.startFromBias(calibration.biasRadiansPerSecond) }
        gestures = MotionGestures(clutchMode: clutchMode)
        self.stream = stream
    }

    /// Fuses `sample` and returns the update to hand to the outputs, stamped `nowNanoseconds`.
    public mutating func fuse(_ sample: MotionSample, nowNanoseconds: UInt64) -> AttitudeUpdate {
        estimator.update(sample)
        defer { sequence += 1 }
        return AttitudeUpdate(
            stream: stream, sequence: sequence, buttons: buttons, frame: AttitudeFrame(gestures.relative(estimator.attitude)),
            receivedNanoseconds: nowNanoseconds, sample: sample)
    }

    /// The current gyroscope bias estimate, in rad/s.
    public var gyroBiasRadiansPerSecond: SIMD3<Double> { estimator.gyroBiasRadiansPerSecond }

    /// The buttons an update carries now.
    public var buttons: ButtonState { heldButtons.union(gestures.motionEnabled ? .clutch : []) }

    /// The clutch button went down or up.
    public mutating func clutch(pressed: Bool) { gestures.clutch(pressed: pressed) }

    /// Makes the current attitude zero.
    public mutating func recenter() { gestures.recenter(at: estimator.attitude) }

    /// Holds or releases `button` (recenter, primary, secondary, middle) in the updates.
    public mutating func set(_ button: ButtonState, held: Bool) {
        if held { heldButtons.insert(button) } else { heldButtons.remove(button) }
    }
}
