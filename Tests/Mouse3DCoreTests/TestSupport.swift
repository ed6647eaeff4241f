import Mouse3DCore
import RealModule

/// The rotation angle between two attitudes, in degrees.
func angleDegrees(_ a: Quaternion, _ b: Quaternion) -> Double {
    let e = a.normalized * b.normalized.conjugate
    return 2 * Double.acos(min(1, abs(e.w))) * 180 / .pi
}

/// The tilt (inclination) difference between two attitudes, in degrees: heading is ignored.
func inclinationDegrees(_ a: Quaternion, _ b: Quaternion) -> Double {
    let e = a.normalized * b.normalized.conjugate
    return 2 * Double.acos(min(1, (e.w * e.w + e.z * e.z).squareRoot())) * 180 / .pi
}

/// Inclination error (degrees RMS) of a fresh filter with `parameters` over `points`, after the
/// first 5 s (the still start every synthetic hand has).
func inclinationRMS(_ points: [SyntheticMotion.Point], _ parameters: AttitudeEstimatorParameters) -> Double {
    var estimator = AttitudeEstimator(parameters: parameters)
    var sum = 0.0
    var count = 0
    for point in points {
        estimator.update(point.sample)
        guard point.sample.timestampNanoseconds >= 5_000_000_000 else { continue }
        let e = inclinationDegrees(estimator.quaternion, point.truth)
        sum += e * e
        count += 1
    }
    return (sum / Double(max(count, 1))).squareRoot()
}

/// Runs a script through a fresh estimator; `each` sees the estimator after every sample.
@discardableResult
func run(
    _ motion: SyntheticMotion, parameters: AttitudeEstimatorParameters = .init(),
    each: (Int, AttitudeEstimator, SyntheticMotion.Point) -> Void = { _, _, _ in }
) -> (estimator: AttitudeEstimator, truth: Quaternion) {
    var estimator = AttitudeEstimator(parameters: parameters)
    let points = motion.generate()
    for (i, point) in points.enumerated() {
        estimator.update(point.sample)
        each(i, estimator, point)
    }
    return (estimator, points.last!.truth)
}

/// One degree in radians.
let degree = Double.pi / 180

/// A realistic consumer IMU: small white noise on both sensors.
func noisy(_ motion: SyntheticMotion, seed: UInt64 = 7) -> SyntheticMotion {
    var m = motion
    m.gyroNoiseRadiansPerSecond = 0.1 * degree
    m.accelerometerNoiseMetersPerSecondSquared = 0.02
    m.seed = seed
    return m
}
