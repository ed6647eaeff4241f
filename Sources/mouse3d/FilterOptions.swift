import ArgumentParser
import Mouse3DCore

/// Fusion filter options shared by `send`, `replay` and `bench`; each overrides the configuration.
struct FilterOptions: ParsableArguments {
    @Option(help: "Accelerometer low-pass time constant in seconds (larger trusts the gyroscope longer; default 2).")
    var accelerometerTimeConstant: Double?

    @Option(
        help:
            "Specific force above this many g is shortened to it before filtering (default 0: never; only for a sensor that glitches)."
    )
    var impactLimit: Double?

    @Option(
        help:
            "Skip accelerometer corrections while filtered specific force differs from 1 g by more than this fraction (default 0.1)."
    )
    var linearAccelerationRejection: Double?

    @Option(
        help:
            "Skip accelerometer corrections while the force, averaged over --disturbance-time-constant, leans more than this many degrees from vertical (0 disables; default 15)."
    )
    var disturbanceAngle: Double?

    @Option(help: "Time constant of that average, in seconds (default 2).")
    var disturbanceTimeConstant: Double?

    @Flag(inversion: .prefixedNo, help: "Estimate the gyroscope bias while the sensor moves (default on).")
    var motionBias: Bool?

    @Flag(inversion: .prefixedNo, help: "Estimate the gyroscope bias while the sensor rests (default on).")
    var restBias: Bool?

    @Option(help: ArgumentHelp("Tuning (see Tools/fusion/tune.py): adaptive time constant gain.", visibility: .hidden))
    var adaptiveGain: Double?
    @Option(help: ArgumentHelp("Tuning (see Tools/fusion/tune.py): adaptive range low.", visibility: .hidden))
    var adaptiveLow: Double?
    @Option(
        help: ArgumentHelp("Tuning (see Tools/fusion/tune.py): adaptive range high (0 disables).", visibility: .hidden))
    var adaptiveHigh: Double?
    @Option(help: ArgumentHelp("Tuning (see Tools/fusion/tune.py): statistics time constant.", visibility: .hidden))
    var motionStatistics: Double?
    @Option(help: ArgumentHelp("Tuning (see Tools/fusion/tune.py): translation filter.", visibility: .hidden))
    var translationFilter: Double?
    @Option(help: ArgumentHelp("Tuning (see Tools/fusion/tune.py): angular speed floor.", visibility: .hidden))
    var angularSpeedFloor: Double?
    @Option(
        help: ArgumentHelp(
            "Tuning (see Tools/fusion/tune.py): gyroscope scale prior, percent (0: not estimated).", visibility: .hidden
        ))
    var gyroScaleSigma: Double?

    @Option(
        help:
            "The accelerometer's range per axis in g, so that saturated readings are cut alike on both sides (default 0: unknown)."
    )
    var accelerometerRange: Double?

    /// The flags given, as a configuration layer (ranges are checked there, against the schema).
    func addFlags(to layer: inout ConfigurationLayer) throws {
        let numbers: [(ConfigurationKey<Double>, String, Double?)] = [
            (.filterAccelerometerTimeConstant, "--accelerometer-time-constant", accelerometerTimeConstant),
            (.filterImpactLimit, "--impact-limit", impactLimit),
            (.filterAccelerometerRange, "--accelerometer-range", accelerometerRange),
            (.filterLinearAccelerationRejection, "--linear-acceleration-rejection", linearAccelerationRejection),
            (.filterDisturbanceAngle, "--disturbance-angle", disturbanceAngle),
            (.filterDisturbanceTimeConstant, "--disturbance-time-constant", disturbanceTimeConstant)
        ]
        for (key, flag, value) in numbers {
            if let value { try layer.set(key, value, origin: .flag(flag)) }
        }
        if let motionBias {
            try layer.set(.filterMotionBias, motionBias, origin: .flag("--[no-]motion-bias"))
        }
        if let restBias { try layer.set(.filterRestBias, restBias, origin: .flag("--[no-]rest-bias")) }
    }

    /// The filter parameters of a configuration.
    static func parameters(_ c: Configuration) -> AttitudeEstimatorParameters {
        var p = AttitudeEstimatorParameters()
        p.accelerometerTimeConstantSeconds = c[.filterAccelerometerTimeConstant]
        let limit = c[.filterImpactLimit]
        p.impactLimitStandardGravities = limit > 0 ? limit : nil
        let range = c[.filterAccelerometerRange]
        p.accelerometerRangeMetersPerSecondSquared = range > 0 ? range * standardGravityMetersPerSecondSquared : nil
        p.linearAccelerationRejectionFraction = c[.filterLinearAccelerationRejection]
        let angle = c[.filterDisturbanceAngle]
        p.disturbanceAngleRadians = angle > 0 ? angle * .pi / 180 : nil
        p.disturbanceTimeConstantSeconds = c[.filterDisturbanceTimeConstant]
        p.motionBiasEstimation = c[.filterMotionBias]
        p.restBiasEstimation = c[.filterRestBias]
        return p
    }

    /// The filter parameters: configuration files and environment, then these flags.
    func parameters() throws -> AttitudeEstimatorParameters {
        let layer = try EffectiveConfiguration.flags { try addFlags(to: &$0) }
        var p = FilterOptions.parameters(try EffectiveConfiguration.load(flags: layer))
        if let adaptiveGain { p.adaptiveTimeConstantGain = adaptiveGain }
        if let motionStatistics { p.motionStatisticsTimeConstantSeconds = motionStatistics }
        if let translationFilter { p.translationFilterTimeConstantSeconds = translationFilter }
        if let angularSpeedFloor { p.angularSpeedFloorRadiansPerSecond = angularSpeedFloor }
        if let gyroScaleSigma {
            p.gyroScaleEstimation = gyroScaleSigma > 0
            p.gyroScaleSigmaInitial = gyroScaleSigma / 100
        }
        if adaptiveLow != nil || adaptiveHigh != nil {
            let r = p.adaptiveTimeConstantRangeSeconds ?? 1...8
            p.adaptiveTimeConstantRangeSeconds =
                adaptiveHigh == 0 ? nil : (adaptiveLow ?? r.lowerBound)...(adaptiveHigh ?? r.upperBound)
        }
        return p
    }
}
