import Mouse3DCore
import RealModule

/// A sensor left still after power-up, with a gyroscope bias of the order an uncalibrated
/// DualSense shows: how fast the attitude drifts once the bias is learnt, and how long learning it
/// takes. Exact truth: the sensor never moves and its bias is known.
public enum RestDriftBenchmark {
    /// The gyroscope bias, in rad/s: about 1 °/s in all, different on every axis.
    public static let gyroBiasRadiansPerSecond = SIMD3<Double>(0.6, -0.5, 0.8) * (.pi / 180)
    /// The bias estimate counts as converged once it stays within this of the truth, in rad/s (0.05 °/s).
    public static let convergenceToleranceRadiansPerSecond = 0.05 * .pi / 180
    /// The drift is measured from this time on, in seconds, when every filter has settled.
    public static let driftStartSeconds = 60.0

    /// Ten minutes still at 250 Hz, tilted 20° about x, with the bias and white noise (0.1 °/s,
    /// 0.03 m/s² per sample).
    public static func motion(seconds: Double = 600, hertz: Double = 250) -> SyntheticMotion {
        var motion = SyntheticMotion(
            initialAttitude: Attitude(quaternion: Quaternion(axis: SIMD3(1, 0, 0), angleRadians: 20 * .pi / 180)),
            segments: [.init(seconds: seconds)], sampleRateHertz: hertz)
        motion.gyroBiasRadiansPerSecond = gyroBiasRadiansPerSecond
        motion.gyroNoiseRadiansPerSecond = 0.1 * .pi / 180
        motion.accelerometerNoiseMetersPerSecondSquared = 0.03
        motion.seed = 2026
        return motion
    }

    /// What one filter did.
    public struct Figures: Sendable, Equatable {
        /// How far the attitude turned from ``driftStartSeconds`` to the end, per minute, in degrees:
        /// the net rotation, summed as a rotation vector in 1 s steps so that a drift past 180° counts
        /// in full.
        public var driftDegreesPerMinute: Double
        /// The first time after which the bias estimate stays within the tolerance, in seconds; `nil`
        /// if it is still outside at the end.
        public var convergenceSeconds: Double?
    }

    /// The figures of a filter from its attitude and bias estimate after every sample of `points`.
    public static func figures(
        points: [SyntheticMotion.Point], attitudes: [Quaternion], biases: [SIMD3<Double>]
    ) -> Figures {
        precondition(points.count == attitudes.count && points.count == biases.count && !points.isEmpty)
        let seconds = points.map { Double($0.sample.timestampNanoseconds) * 1e-9 }
        let start = seconds.firstIndex { $0 >= driftStartSeconds } ?? 0
        var net = SIMD3<Double>.zero
        var i = start
        while i < attitudes.count - 1 {
            let next = min(
                attitudes.count - 1, seconds[i...].firstIndex { $0 >= seconds[i] + 1 } ?? attitudes.count - 1)
            net += (attitudes[next].normalized * attitudes[i].normalized.conjugate).rotationVector
            i = next
        }
        let degrees = length(net) * 180 / .pi
        let minutes = max((seconds[seconds.count - 1] - seconds[start]) / 60, 1e-9)
        let tolerance = convergenceToleranceRadiansPerSecond
        let lastOutside = biases.lastIndex { length($0 - gyroBiasRadiansPerSecond) >= tolerance }
        let converged: Double? =
            switch lastOutside {
            case nil: seconds[0]
            case let i? where i + 1 < seconds.count: seconds[i + 1]
            default: nil
            }
        return Figures(driftDegreesPerMinute: degrees / minutes, convergenceSeconds: converged)
    }

    /// mouse3d's figures with `parameters`.
    public static func run(_ parameters: AttitudeEstimatorParameters, points: [SyntheticMotion.Point]) -> Figures {
        var estimator = AttitudeEstimator(parameters: parameters)
        var attitudes: [Quaternion] = []
        var biases: [SIMD3<Double>] = []
        attitudes.reserveCapacity(points.count)
        biases.reserveCapacity(points.count)
        for point in points {
            estimator.update(point.sample)
            attitudes.append(estimator.quaternion)
            biases.append(estimator.gyroBiasRadiansPerSecond)
        }
        return figures(points: points, attitudes: attitudes, biases: biases)
    }
}
