import RealModule

/// How the gyroscope's turn becomes a virtual gamepad stick's deflection, for games that aim with a
/// stick (JoyShockMapper's `GYRO_OUTPUT = RIGHT_STICK` and its `_STICK_UNDEADZONE_*`, `_UNPOWER`
/// and `VIRTUAL_STICK_CALIBRATION` settings, after its `processGyroStick`).
///
/// A game turns its camera at a speed that grows with the stick's deflection: nothing inside its
/// inner dead zone, its full speed at the outer edge, along a power curve between. This mapping
/// inverts that: the controller turning at `rate` °/s asks for the camera to turn at
/// `rate × sensitivity`, and the stick is deflected to where the game gives that speed. So with the
/// game's settings entered right (its full speed, its dead zone, its curve) the camera follows the
/// controller as a gyro mouse would, up to the game's full speed.
public struct GyroStickMapping: Sendable, Equatable {
    /// Which stick the gyroscope drives.
    public enum Stick: String, Sendable, CaseIterable {
        case right, left
    }

    /// The stick the gyroscope drives; the other passes the real pad's through untouched.
    public var stick = Stick.right
    /// The camera's turn per degree the controller turns (1: the camera turns as the controller does).
    public var sensitivity = 1.0
    /// The game's camera speed at full deflection, °/s (JoyShockMapper's VIRTUAL_STICK_CALIBRATION,
    /// whose default this is). Faster turns are capped there.
    public var fullSpeedDegreesPerSecond = 360.0
    /// The game's inner dead zone, a fraction of the stick's reach: the smallest turn is given at
    /// least this deflection, so the game sees it at once.
    public var innerDeadZone = 0.0
    /// The part of the stick's reach at its outer edge that the game already takes as full.
    public var outerDeadZone = 0.0
    /// The exponent of the game's response curve (speed ∝ deflection^power; 1: linear).
    public var power = 1.0
    /// A controller turning slower than this (°/s) adds nothing, so the stick rests at centre while
    /// the controller does (the gyroscope's noise at rest, after calibration, is well under it).
    public var restDegreesPerSecond = 1.0
    /// Which turns drive the stick.
    public var gyroSpace = GyroSpace.player
    /// Mirror the horizontal axis.
    public var invertX = false
    /// Mirror the vertical axis.
    public var invertY = false

    /// The defaults: the right stick, 1:1, a game turning 360 °/s at full deflection with no dead
    /// zone and a linear curve, 1 °/s at rest, player space.
    public init() {}

    /// What is wrong with these settings, if anything (one sentence per problem).
    public var problems: [String] {
        var found: [String] = []
        if !(sensitivity.isFinite && sensitivity > 0) { found.append("the sensitivity must be above 0") }
        if !(fullSpeedDegreesPerSecond.isFinite && fullSpeedDegreesPerSecond > 0) {
            found.append("the game's full speed must be above 0 °/s")
        }
        if !deadZonesLeaveRoom {
            found.append(
                "the dead zones must be 0 or more and leave some of the stick between them (inner + outer < 1)")
        }
        if !(power.isFinite && power > 0) { found.append("the power must be above 0") }
        if !(restDegreesPerSecond.isFinite && restDegreesPerSecond >= 0) {
            found.append("the rest speed must be 0 °/s or more")
        }
        return found
    }

    /// Whether the dead zones are 0 or more and leave some of the stick between them.
    public var deadZonesLeaveRoom: Bool {
        innerDeadZone >= 0 && outerDeadZone >= 0 && innerDeadZone + outerDeadZone < 1
    }

    /// The part of the stick's reach between the dead zones.
    public var liveZone: Double { 1 - innerDeadZone - outerDeadZone }

    /// The camera speed (°/s, right and down) the game gives a stick deflected to `deflection`
    /// (each axis -1...1, right and down): the game's side, as configured.
    public func cameraVelocity(deflection: SIMD2<Double>) -> SIMD2<Double> {
        let reach = (deflection * deflection).sum().squareRoot()
        guard reach > 0 else { return .zero }
        let along = min(1, max(0, (reach - innerDeadZone) / liveZone))
        return deflection / reach * (Double.pow(along, power) * fullSpeedDegreesPerSecond)
    }

    /// The deflection (each axis -1...1, right and down) that makes the game turn at the camera
    /// velocity the gyroscope asks for (`gyro`, °/s) plus what the real stick (`real`, -1...1)
    /// already asks for. Without the gyroscope's part the real stick passes as it is.
    public func deflection(gyro: SIMD2<Double>, real: SIMD2<Double>) -> SIMD2<Double> {
        guard gyro != .zero else { return real }
        let velocity = cameraVelocity(deflection: real) + gyro
        let speed = (velocity * velocity).sum().squareRoot()
        guard speed > 0 else { return .zero }
        let strength = Double.pow(min(1, speed / fullSpeedDegreesPerSecond), 1 / power)
        let reach = innerDeadZone + liveZone * strength
        let out = velocity / speed * reach
        return SIMD2(min(1, max(-1, out.x)), min(1, max(-1, out.y)))
    }
}
