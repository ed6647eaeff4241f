import RealModule

/// The guided procedure behind `mouse3d calibrate --axes`: fed the device's samples (in the axes
/// they arrive in), it watches three things a person does:
/// 1. **Still**, held as it will be used: the accelerometer gives up (its sign still unknown) and
///    the gyroscope its bias.
/// 2. **A turn to the left** about the vertical: the gyroscope's rotation axis is up, with its
///    sign (a left turn is positive about up), which says what the accelerometer reads.
/// 3. **The far edge tilted up**: the rotation axis is −left. Gravity measured after the tilt must
///    be where the gyroscope's own record of the tilt puts it, or the axes are left-handed.
/// Up from gravity, left from the tilt made perpendicular to it, forward = left × up: a proper
/// rotation. A motion that is too small, not about one axis, a turn not about the vertical, a
/// tilt about the turn's axis, or axes that disagree is refused with what to do; that step is
/// then watched again.
public struct AxesSetupProcedure: Sendable {
    /// What the person is asked to do now.
    public enum Step: Sendable, Equatable {
        /// Hold it still, as it will be used.
        case still
        /// Turn it to the left.
        case turnLeft
        /// Tilt the far edge up.
        case tiltUp
        /// Done: ``result`` holds the setup.
        case done
    }

    /// Why a motion was not taken.
    public enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// Smaller than needed (degrees turned, degrees needed).
        case tooSmall(Step, Double, Double)
        /// Not about one axis (the fraction of the motion that was).
        case notAboutOneAxis(Step, Double)
        /// The turn's axis was this many degrees from the vertical.
        case turnNotVertical(Double)
        /// The tilt's axis was this many degrees from the turn's.
        case sameAxis(Double)
        /// Gravity after the tilt was this many degrees from where the gyroscope put it.
        case axesDisagree(Double)

        public var description: String {
            switch self {
            case .tooSmall(let step, let turned, let needed):
                return
                    "\(step == .turnLeft ? "the turn" : "the tilt") was \(fixed(turned, 0))°, at least \(fixed(needed, 0))° is needed: \(step == .turnLeft ? "turn further" : "tilt further")"
            case .notAboutOneAxis(let step, let fraction):
                return
                    "\(step == .turnLeft ? "the turn" : "the tilt") was not about one axis (only \(fixed(fraction * 100, 0))% of it was): \(step == .turnLeft ? "keep it level as you turn, like a steering wheel lying flat" : "raise the far edge without turning or rolling it")"
            case .turnNotVertical(let degrees):
                return
                    "the turn was about an axis \(fixed(degrees, 0))° from the vertical: turn it to the left keeping it as you hold it, not tipping it"
            case .sameAxis(let degrees):
                return
                    "the tilt was about nearly the same axis as the turn (\(fixed(degrees, 0))° apart): tilt the far edge up, do not turn it"
            case .axesDisagree(let degrees):
                return
                    "gravity after the tilt is \(fixed(degrees, 0))° from where the gyroscope says it should be: the accelerometer's and gyroscope's axes disagree (a left-handed or mismatched frame), which a rotation cannot fix; check the driver"
            }
        }
    }

    /// What to say to the person for `step`.
    public static func prompt(_ step: Step) -> String {
        switch step {
        case .still: "1 of 3: hold it still, as you will use it"
        case .turnLeft: "2 of 3: turn it to the left (a quarter turn, as if looking left), then hold it still"
        case .tiltUp: "3 of 3: tilt the far edge up (about 30°, as if looking up), then hold it still"
        case .done: "done"
        }
    }

    /// What the last sample did.
    public enum Progress: Sendable, Equatable {
        /// Still collecting stillness (the fraction done).
        case holding(Double)
        /// It moved while it should be still: starting over.
        case moved
        /// Waiting for the motion to start.
        case waiting
        /// The motion is under way (degrees so far).
        case moving(Double)
        /// A step was done; the next one is asked for.
        case next(Step)
        /// The motion was refused; the same step is asked for again.
        case refused(Refusal)
    }

    /// Degrees per second above which a motion has started (over the bias).
    public static let startDegreesPerSecond = 20.0
    /// Degrees per second below which, for ``settleSeconds``, a motion has ended.
    public static let endDegreesPerSecond = 6.0
    /// Seconds of calm that end a motion.
    public static let settleSeconds = 0.4
    /// Least turn and tilt, in degrees.
    public static let leastTurn = 30.0, leastTilt = 15.0
    /// Least share of a motion about its own axis.
    public static let leastPurity = 0.8

    /// The device key the result is for.
    public let device: String
    /// What is asked for now.
    public private(set) var step: Step = .still
    /// The result once ``Step/done``.
    public private(set) var result: AxesSetup?
    /// Motions refused so far.
    public private(set) var refusals: [Refusal] = []

    private var still: GyroCalibrator
    private var forceSum = SIMD3<Double>.zero
    private var forceCount = 0
    private var bias = SIMD3<Double>.zero
    private var gravity = SIMD3<Double>.zero  // the still reading (sign unknown)
    private var up = SIMD3<Double>.zero  // unit, in the device's axes
    private var sign = 1.0
    // The motion under way.
    private var moving = false
    private var turn = Quaternion(w: 1, x: 0, y: 0, z: 0)
    private var pathRadians = 0.0
    private var calmSince: Int64?
    private var calmForce = SIMD3<Double>.zero
    private var calmCount = 0
    private var beforeMotion = SIMD3<Double>.zero
    private var lastTime: Int64?

    /// A procedure for `device`; `stillSeconds` of stillness are asked for first.
    public init(device: String, stillSeconds: Double = 1.5) {
        self.device = device
        still = GyroCalibrator(
            seconds: stillSeconds, motionThresholdDegreesPerSecond: 6, accelerometerThreshold: 0.8)
    }

    /// Takes one sample.
    public mutating func add(_ sample: MotionSample) -> Progress {
        defer { lastTime = sample.timestampNanoseconds }
        switch step {
        case .done: return .next(.done)
        case .still: return addStill(sample)
        case .turnLeft, .tiltUp: return addMotion(sample)
        }
    }

    private mutating func addStill(_ sample: MotionSample) -> Progress {
        switch still.add(sample) {
        case .moved:
            forceSum = .zero
            forceCount = 0
            return .moved
        case .collecting(let done):
            forceSum += sample.specificForceMetersPerSecondSquared
            forceCount += 1
            return .holding(done)
        case .done:
            forceSum += sample.specificForceMetersPerSecondSquared
            forceCount += 1
            bias = still.result?.bias ?? .zero
            gravity = forceSum / Double(forceCount)
            beforeMotion = gravity
            step = .turnLeft
            return .next(.turnLeft)
        }
    }

    private mutating func addMotion(_ sample: MotionSample) -> Progress {
        let rate = sample.angularVelocityRadiansPerSecond - bias
        let speed = length(rate) * 180 / .pi
        guard moving else {
            if speed > Self.startDegreesPerSecond {
                moving = true
                turn = Quaternion(w: 1, x: 0, y: 0, z: 0)
                pathRadians = 0
                calmSince = nil
            } else {
                // Waiting: the latest still reading is what the motion starts from.
                beforeMotion = beforeMotion * 0.9 + sample.specificForceMetersPerSecondSquared * 0.1
                return .waiting
            }
            return .moving(0)
        }
        let dt = min(
            0.1, max(0, Double(sample.timestampNanoseconds - (lastTime ?? sample.timestampNanoseconds)) * 1e-9))
        let angle = length(rate) * dt
        if angle > 0 {
            turn = (turn * Quaternion(axis: rate / length(rate), angleRadians: angle)).normalized
            pathRadians += angle
        }
        if speed < Self.endDegreesPerSecond {
            if calmSince == nil {
                calmSince = sample.timestampNanoseconds
                calmForce = .zero
                calmCount = 0
            }
            calmForce += sample.specificForceMetersPerSecondSquared
            calmCount += 1
            if Double(sample.timestampNanoseconds - calmSince!) * 1e-9 >= Self.settleSeconds {
                moving = false
                return finishMotion(after: calmForce / Double(calmCount))
            }
        } else {
            calmSince = nil
        }
        return .moving(length(turn.rotationVector) * 180 / .pi)
    }

    private mutating func finishMotion(after force: SIMD3<Double>) -> Progress {
        let vector = turn.rotationVector
        let degrees = length(vector) * 180 / .pi
        let purity = pathRadians > 0 ? length(vector) / pathRadians : 0
        let axis = degrees > 0 ? vector / length(vector) : SIMD3(0, 0, 1)
        let refusal: Refusal?
        if step == .turnLeft {
            let g = gravity / max(length(gravity), 1e-9)
            let offVertical = Double.acos(min(1, abs(dot(axis, g)))) * 180 / .pi
            if degrees < Self.leastTurn {
                refusal = .tooSmall(.turnLeft, degrees, Self.leastTurn)
            } else if purity < Self.leastPurity {
                refusal = .notAboutOneAxis(.turnLeft, purity)
            } else if offVertical > 30 {
                refusal = .turnNotVertical(offVertical)
            } else {
                refusal = nil
                // A left turn is positive about up: the reading along it says the accelerometer's sign.
                sign = dot(axis, gravity) >= 0 ? 1 : -1
                up = g * sign
                step = .tiltUp
            }
        } else {
            let apart = Double.acos(min(1, abs(dot(axis, up)))) * 180 / .pi
            // The still reading before the tilt, carried through the gyroscope's record of it: where
            // gravity must be read after it (a world-fixed vector seen from the turned device).
            let expected = turn.conjugate.rotate(beforeMotion)
            let disagreement =
                Double.acos(max(-1, min(1, dot(expected, force) / max(length(expected) * length(force), 1e-9)))) * 180
                / .pi
            if degrees < Self.leastTilt {
                refusal = .tooSmall(.tiltUp, degrees, Self.leastTilt)
            } else if purity < Self.leastPurity {
                refusal = .notAboutOneAxis(.tiltUp, purity)
            } else if apart < 45 {
                refusal = .sameAxis(apart)
            } else if disagreement > max(10, degrees * 0.3) {
                refusal = .axesDisagree(disagreement)
            } else {
                refusal = nil
                let tiltLeft = -axis
                let left = tiltLeft - up * dot(tiltLeft, up)
                let l = left / length(left)
                let forward = cross(l, up)
                result = AxesSetup(device: device, rotation: Matrix3(forward, l, up), accelerometerSign: sign)
                step = .done
            }
        }
        beforeMotion = force
        if let refusal {
            refusals.append(refusal)
            return .refused(refusal)
        }
        return .next(step)
    }
}
