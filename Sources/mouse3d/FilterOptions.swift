import ArgumentParser
import Mouse3DCore

/// Fusion tuning shared by every command that runs the filter.
struct FilterOptions: ParsableArguments {
    @Option(help: "Accelerometer low-pass time constant in seconds (larger trusts the gyroscope longer).")
    var accelerometerTimeConstant: Double = AttitudeEstimatorParameters().accelerometerTimeConstantSeconds

    @Option(help: "Specific force above this many g (an impact) is shortened to it before filtering.")
    var impactLimit: Double = AttitudeEstimatorParameters().impactLimitStandardGravities

    @Option(help: "Skip accelerometer corrections while filtered specific force differs from 1 g by more than this fraction.")
    var linearAccelerationRejection: Double = AttitudeEstimatorParameters().linearAccelerationRejectionFraction

    @Option(help: "Skip accelerometer corrections while the force, averaged over about 1 s, leans more than this many degrees from vertical (0 disables).")
    var disturbanceAngle: Double = AttitudeEstimatorParameters().disturbanceAngleRadians * 180 / .pi

    @Option(help: "Time constant of that average, in seconds.")
    var disturbanceTimeConstant: Double = AttitudeEstimatorParameters().disturbanceTimeConstantSeconds

    @Flag(inversion: .prefixedNo, help: "Estimate the gyroscope bias while the sensor moves.")
    var motionBias = true

    @Flag(inversion: .prefixedNo, help: "Estimate the gyroscope bias while the sensor rests.")
    var restBias = true

    func validate() throws {
        guard accelerometerTimeConstant.isFinite, accelerometerTimeConstant >= 0.05, accelerometerTimeConstant <= 1000 else {
            throw ValidationError("--accelerometer-time-constant must be between 0.05 and 1000 seconds.")
        }
        guard impactLimit.isFinite, impactLimit >= 1.5 else {
            throw ValidationError("--impact-limit must be at least 1.5 (g).")
        }
        guard disturbanceAngle.isFinite, disturbanceAngle >= 0, disturbanceAngle < 90 else {
            throw ValidationError("--disturbance-angle must be 0 (off) or between 0 and 90 degrees.")
        }
        guard disturbanceTimeConstant.isFinite, disturbanceTimeConstant > 0, disturbanceTimeConstant <= 100 else {
            throw ValidationError("--disturbance-time-constant must be between 0 and 100 seconds.")
        }
        guard linearAccelerationRejection.isFinite, linearAccelerationRejection > 0 else {
            throw ValidationError("--linear-acceleration-rejection must be a positive fraction, for example 0.1.")
        }
    }

    /// The filter parameters these options describe.
    var parameters: AttitudeEstimatorParameters {
        var p = AttitudeEstimatorParameters()
        p.accelerometerTimeConstantSeconds = accelerometerTimeConstant
        p.impactLimitStandardGravities = impactLimit
        p.linearAccelerationRejectionFraction = linearAccelerationRejection
        p.disturbanceAngleRadians = disturbanceAngle > 0 ? disturbanceAngle * .pi / 180 : .pi / 2
        p.disturbanceTimeConstantSeconds = disturbanceTimeConstant
        p.motionBiasEstimation = motionBias
        p.restBiasEstimation = restBias
        return p
    }
}
