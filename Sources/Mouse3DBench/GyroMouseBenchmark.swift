import Mouse3DCore
import RealModule

/// How good a gyro mouse the fusion and the pointer mapping make, against simulated motion with
/// exact truth: drift and jitter at rest, how long the bias takes to learn, the scale of a full
/// turn, how much of a turn leaks onto the wrong axis with a tilted grip, and the lag smoothing adds.
public enum GyroMouseBenchmark {
    /// One figure: what, how much, in what unit, and how it was measured.
    public struct Figure: Sendable {
        public var name: String
        public var value: Double
        public var unit: String
        public var detail: String
    }

    /// What a motion does through a fusion with `parameters` (or, with `truth`, on its exact
    /// attitudes, no fusion run) and a pointer with `mapping`, after every sample.
    struct Track {
        var positions: [SIMD2<Double>] = []
        var attitudes: [Quaternion] = []
        var biases: [SIMD3<Double>] = []
    }

    static func pointer(
        _ points: [SyntheticMotion.Point], _ parameters: AttitudeEstimatorParameters, _ mapping: PointerMapping,
        truth: Bool = false
    ) -> Track {
        var estimator = AttitudeEstimator(parameters: parameters)
        var motion = PointerMotion(mapping: mapping)
        var position = SIMD2<Double>.zero
        var track = Track()
        track.positions.reserveCapacity(points.count)
        if !truth {
            track.attitudes.reserveCapacity(points.count)
            track.biases.reserveCapacity(points.count)
        }
        for point in points {
            let attitude: Attitude
            if truth {
                attitude = Attitude(quaternion: point.truth)
            } else {
                estimator.update(point.sample)
                attitude = estimator.attitude
                track.attitudes.append(estimator.quaternion)
                track.biases.append(estimator.gyroBiasRadiansPerSecond)
            }
            let step = motion.update(
                rollRadians: attitude.rollRadians, pitchRadians: attitude.pitchRadians, yawRadians: attitude.yawRadians,
                timeNanoseconds: UInt64(point.sample.timestampNanoseconds), enabled: true)
            position += SIMD2(Double(step.dx), Double(step.dy))
            track.positions.append(position)
        }
        return track
    }

    /// A level controller with the rest benchmark's bias and noise doing `segments`.
    static func motion(_ segments: [SyntheticMotion.Segment], attitude: Quaternion = .identity, hertz: Double)
        -> SyntheticMotion
    {
        let rest = RestDriftBenchmark.motion(seconds: 1, hertz: hertz)
        var m = SyntheticMotion(
            initialAttitude: Attitude(quaternion: attitude), segments: segments, sampleRateHertz: hertz)
        m.gyroBiasRadiansPerSecond = rest.gyroBiasRadiansPerSecond
        m.gyroNoiseRadiansPerSecond = rest.gyroNoiseRadiansPerSecond
        m.accelerometerNoiseMetersPerSecondSquared = rest.accelerometerNoiseMetersPerSecondSquared
        return m
    }

    /// The pointer's distance from where it was at the start of the drift window (px), every
    /// `step` seconds over the rest benchmark's 10 minutes, with bias estimation and without: what
    /// `bench gyro-mouse --plot` draws. Times in seconds after power-up.
    public static func restTraces(
        parameters: AttitudeEstimatorParameters, mapping: PointerMapping, hertz: Double = 250, step: Double = 0.5
    ) -> (seconds: [Double], estimated: [Double], blind: [Double]) {
        let rest = RestDriftBenchmark.motion(hertz: hertz).generate()
        let start = Int(RestDriftBenchmark.driftStartSeconds * hertz)
        var blind = parameters
        blind.restBiasEstimation = false
        blind.motionBiasEstimation = false
        let a = pointer(rest, parameters, mapping).positions
        let b = pointer(rest, blind, mapping).positions
        let stride = max(1, Int(step * hertz))
        let indices = Array(Swift.stride(from: 0, to: rest.count, by: stride))
        func distance(_ p: [SIMD2<Double>], _ i: Int) -> Double {
            let d = p[i] - p[min(start, p.count - 1)]
            return (d * d).sum().squareRoot()
        }
        return (indices.map { Double($0) / hertz }, indices.map { distance(a, $0) }, indices.map { distance(b, $0) })
    }

    /// Every figure, for the fusion `parameters` and the pointer `mapping`, at `hertz`.
    public static func run(parameters: AttitudeEstimatorParameters, mapping: PointerMapping, hertz: Double = 250)
        -> [Figure]
    {
        var figures: [Figure] = []
        let rest = RestDriftBenchmark.motion(hertz: hertz).generate()
        let start = Int(RestDriftBenchmark.driftStartSeconds * hertz)
        func restFigures(_ p: AttitudeEstimatorParameters, _ label: String) {
            let track = pointer(rest, p, mapping)
            let positions = track.positions
            let fused = RestDriftBenchmark.figures(points: rest, attitudes: track.attitudes, biases: track.biases)
            let minutes = Double(rest.count - 1 - start) / hertz / 60
            let net = positions[rest.count - 1] - positions[start]
            figures.append(
                Figure(
                    name: "drift at rest\(label)", value: fused.driftDegreesPerMinute, unit: "°/min",
                    detail: "attitude, minute 1 to 10 of 10 still after power-up, bias 0.6/-0.5/0.8 °/s"))
            figures.append(
                Figure(
                    name: "pointer drift at rest\(label)", value: (net * net).sum().squareRoot() / minutes,
                    unit: "px/min",
                    detail: "net pointer motion, minute 1 to 10"))
            if label.isEmpty {
                figures.append(
                    Figure(
                        name: "bias convergence", value: fused.convergenceSeconds ?? .infinity, unit: "s",
                        detail: "after power-up, until the estimate stays within 0.05 °/s"))
                let window = positions[start..<min(rest.count, start + Int(60 * hertz))]
                let mean = window.reduce(SIMD2<Double>.zero, +) / Double(window.count)
                let rms = (window.reduce(0.0) { $0 + (($1 - mean) * ($1 - mean)).sum() } / Double(window.count))
                    .squareRoot()
                figures.append(
                    Figure(
                        name: "rest jitter", value: rms, unit: "px RMS",
                        detail: "pointer position about its mean over minute 1 to 2"))
            }
        }
        restFigures(parameters, "")
        var blind = parameters
        blind.restBiasEstimation = false
        blind.motionBiasEstimation = false
        restFigures(blind, " without bias estimation")

        // A full turn to the left at 180 °/s after 5 s still (the bias learnt), then 3 s still.
        let turn = motion(
            [.init(seconds: 5), .init(seconds: 2, radiansPerSecond: SIMD3(0, 0, .pi)), .init(seconds: 3)], hertz: hertz)
        let turned = pointer(turn.generate(), parameters, mapping).positions
        let expected = 360 * mapping.countsPerDegree
        let moved = turned[turned.count - 1] - turned[Int(4 * hertz)]
        figures.append(
            Figure(
                name: "360° turn scale error", value: (abs(moved.x) / expected - 1) * 100, unit: "%",
                detail: "\(Int(abs(moved.x))) counts for \(Int(expected)) promised; \(Int(moved.y)) vertical"))

        // The grip rolled 30°, turning 90° about gravity in 1 s: what shows vertically, per gyro space.
        let tilt = Quaternion(axis: SIMD3(1, 0, 0), angleRadians: 30 * .pi / 180)
        let rate = Double.pi / 2
        let tilted = motion(
            [
                .init(seconds: 5), .init(seconds: 1, radiansPerSecond: SIMD3(0, 0.5, 0.75.squareRoot()) * rate),
                .init(seconds: 2)
            ],
            attitude: tilt, hertz: hertz
        ).generate()
        for space in GyroSpace.allCases {
            var m = mapping
            m.gyroSpace = space
            let track = pointer(tilted, parameters, m).positions
            let d = track[track.count - 1] - track[Int(4 * hertz)]
            figures.append(
                Figure(
                    name: "gyro-space leakage, \(space.rawValue)", value: abs(d.y) / max(abs(d.x), 1) * 100, unit: "%",
                    detail: "vertical of horizontal, grip rolled 30°, 90° turn about gravity"))
        }

        // Smoothing: the lag of the smoothed pointer behind the unsmoothed one, on exact attitudes.
        for (speed, label) in [(2.0, "slow (2 °/s)"), (100.0, "fast (100 °/s)")] {
            let seconds = speed < 10 ? 4.0 : 1.0
            let ramp = motion(
                [.init(seconds: 1), .init(seconds: seconds, radiansPerSecond: SIMD3(0, 0, speed * .pi / 180))],
                hertz: hertz
            ).generate()
            var plain = mapping
            plain.smoothingDegreesPerSecond = 0
            let smooth = pointer(ramp, parameters, mapping, truth: true).positions
            let direct = pointer(ramp, parameters, plain, truth: true).positions
            let from = Int((1 + seconds / 2) * hertz)
            var lag = 0.0
            for i in from..<ramp.count { lag += abs(direct[i].x) - abs(smooth[i].x) }
            lag /= Double(ramp.count - from)
            figures.append(
                Figure(
                    name: "smoothing latency, \(label)", value: lag / (speed * mapping.countsPerDegree) * 1000,
                    unit: "ms",
                    detail: mapping.smoothingDegreesPerSecond > 0
                        ? "smoothing below \(fixed(mapping.smoothingDegreesPerSecond, 1)) °/s over \(fixed(mapping.smoothingWindowSeconds * 1000, 0)) ms"
                        : "smoothing off"))
        }
        return figures
    }
}
