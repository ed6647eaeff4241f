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
    /// The device, for a calibration made while running (see ``GyroCalibration/deviceKey(kind:name:deviceID:uniqueID:sysfsPath:)``).
    public let device: String
    private var calibrator: GyroCalibrator?
    private var calibrationEvent: CalibrationEvent?
    private let maximumGapNanoseconds: Int64
    private var lastSampleNanoseconds: Int64?
    private var longGap: Int64?

    /// What a calibration started by ``startCalibration(seconds:)`` did.
    public enum CalibrationEvent: Sendable, Equatable {
        /// The device moved: measuring started over.
        case moved
        /// Done: the bias is in use from the next sample; store it.
        case done(GyroCalibration)
    }

    /// A fusion with these filter parameters and clutch mode (nil: no clutch, motion always on),
    /// starting from a calibrated gyroscope bias if there is one.
    public init(
        parameters: AttitudeEstimatorParameters, clutchMode: MotionGestures.ClutchMode? = nil,
        stream: StreamLabel = .local,
        calibration: GyroCalibration? = nil, device: String = "unknown"
    ) {
        self.device = device
        estimator = AttitudeEstimator(parameters: parameters)
        maximumGapNanoseconds = Int64(exactly: (parameters.maximumGapSeconds * 1e9).rounded()) ?? .max
        if let calibration { estimator.startFromBias(calibration.biasRadiansPerSecond) }
        gestures = MotionGestures(clutchMode: clutchMode)
        self.stream = stream
    }

    /// Fuses `sample` and returns the update to hand to the outputs, stamped `nowNanoseconds`.
    public mutating func fuse(_ sample: MotionSample, nowNanoseconds: UInt64) -> AttitudeUpdate {
        if let last = lastSampleNanoseconds {
            // Backwards or across the range (a clock that jumped): not a gap to report.
            let (gap, overflow) = sample.timestampNanoseconds.subtractingReportingOverflow(last)
            if !overflow && gap > maximumGapNanoseconds { longGap = max(longGap ?? 0, gap) }
        }
        lastSampleNanoseconds = sample.timestampNanoseconds
        estimator.update(sample)
        if calibrator != nil { calibrate(sample) }
        defer { sequence += 1 }
        return AttitudeUpdate(
            stream: stream, sequence: sequence, buttons: buttons,
            frame: AttitudeFrame(gestures.relative(estimator.attitude)),
            receivedNanoseconds: nowNanoseconds, motionNanoseconds: UInt64(max(0, sample.timestampNanoseconds)))
    }

    /// The attitude as it stands, with the buttons as they are now, as an update of its own (no
    /// sample), stamped `nowNanoseconds`; nil before the first sample. What outputs hear when
    /// buttons change with no sample to carry them (the device went away holding them).
    public mutating func update(nowNanoseconds: UInt64) -> AttitudeUpdate? {
        guard sequence > 0 else { return nil }
        defer { sequence += 1 }
        return AttitudeUpdate(
            stream: stream, sequence: sequence, buttons: buttons,
            frame: AttitudeFrame(gestures.relative(estimator.attitude)),
            receivedNanoseconds: nowNanoseconds)
    }

    /// The longest gap between samples since the last call that the filter could not bridge
    /// (longer than its `maximumGapSeconds`: the motion in it was not seen), in nanoseconds; nil if
    /// none. A process stalled past its device's event buffer (evdev's holds a few tens of
    /// milliseconds of a controller's reports, then drops them) loses the motion made meanwhile,
    /// and says so from this.
    public mutating func takeLongGap() -> Int64? {
        defer { longGap = nil }
        return longGap
    }

    /// The source came back after it went away (unplugged, reopened): the time it was away is not
    /// a gap to report (that it went away was said), nor is the jump to the new device's clock.
    public mutating func sourceRestarted() {
        lastSampleNanoseconds = nil
        longGap = nil
    }

    /// Starts measuring the gyroscope bias: once the device has been still for `seconds`, the mean
    /// angular velocity becomes the bias estimate (motion starts it over). Fusion goes on meanwhile.
    public mutating func startCalibration(seconds: Double = 5) { calibrator = GyroCalibrator(seconds: seconds) }

    /// Whether a calibration is under way.
    public var isCalibrating: Bool { calibrator != nil }

    /// What the calibration did since the last call, once.
    public mutating func takeCalibrationEvent() -> CalibrationEvent? {
        defer { calibrationEvent = nil }
        return calibrationEvent
    }

    private mutating func calibrate(_ sample: MotionSample) {
        switch calibrator?.add(sample) {
        case .moved?: calibrationEvent = .moved
        case .done?:
            if let result = calibrator?.result {
                estimator.startFromBias(result.bias)
                calibrationEvent = .done(
                    GyroCalibration(
                        device: device, biasRadiansPerSecond: result.bias, samples: result.samples,
                        noiseRadiansPerSecond: result.noise))
            }
            calibrator = nil
        default: break
        }
    }

    /// The current gyroscope bias estimate, in rad/s.
    public var gyroBiasRadiansPerSecond: SIMD3<Double> { estimator.gyroBiasRadiansPerSecond }

    /// The buttons an update carries now.
    public var buttons: ButtonState { heldButtons.union(gestures.motionEnabled ? .clutch : []) }

    /// The clutch button went down or up.
    public mutating func clutch(pressed: Bool) { gestures.clutch(pressed: pressed) }

    /// The range the device reports for its accelerometer, in m/s² (nil: it does not say); a range set
    /// in the filter's parameters (`filter.accelerometer_range`) wins.
    public mutating func useReportedAccelerometerRange(_ range: Double?) {
        estimator.useReportedAccelerometerRange(range)
    }

    /// Makes the current attitude zero.
    public mutating func recenter() { gestures.recenter(at: estimator.attitude) }

    /// Holds or releases `button` (recenter, primary, secondary, middle) in the updates.
    public mutating func set(_ button: ButtonState, held: Bool) {
        if held { heldButtons.insert(button) } else { heldButtons.remove(button) }
    }
}
