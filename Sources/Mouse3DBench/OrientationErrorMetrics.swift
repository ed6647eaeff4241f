import Mouse3DCore
import RealModule

/// Orientation errors of an estimate against ground truth, in degrees, as the BROAD benchmark defines
/// them (D. Laidig et al., "BROAD—A Benchmark for Robust Inertial Orientation Estimation", Data 2021).
///
/// With `e = q_est ⊗ conj(q_true)`: inclination `2·acos(√(w² + z²))`; heading `2·atan(|z / w|)` after
/// removing one constant heading offset per trial; total `2·acos(|w|)` after removing the heading
/// offset of the first second of movement. Each is a root mean square over the counted samples.
public struct OrientationErrorMetrics: Sendable, Equatable {
    /// Tilt error: how far "up" is off, whatever the heading.
    public var inclinationDegrees: Double
    /// Heading error after removing the trial's mean heading offset.
    public var headingDegrees: Double
    /// Whole-rotation error after removing the heading offset at the start of movement.
    public var totalDegrees: Double
    /// How many samples were counted.
    public var countedSamples: Int
    /// Per counted sample, for plots: its index in the log, its inclination error and its signed
    /// heading error after removing the trial's mean heading offset (degrees).
    public var sampleIndices: [Int] = [], inclinationSeriesDegrees: [Double] = [], headingSeriesDegrees: [Double] = []

    /// Scores `estimates` against `truth`. `counted[i]` says whether sample `i` counts (all when nil);
    /// samples whose truth is not finite are skipped. `sampleRateHertz` sets "the first second".
    public init(estimates: [Quaternion], truth: [Quaternion], counted: [Bool]?, sampleRateHertz: Double) {
        precondition(estimates.count == truth.count, "one estimate per truth sample")
        var errors: [Quaternion?] = []
        errors.reserveCapacity(estimates.count)
        for i in estimates.indices {
            let countsHere = counted?[i] ?? true
            guard countsHere, truth[i].isFinite, estimates[i].isFinite else {
                errors.append(nil)
                continue
            }
            var e = estimates[i].normalized * truth[i].normalized.conjugate
            if e.w < 0 { e = Quaternion(w: -e.w, x: -e.x, y: -e.y, z: -e.z) }
            errors.append(e)
        }
        let valid = errors.compactMap { $0 }
        countedSamples = valid.count
        guard !valid.isEmpty else {
            inclinationDegrees = .nan
            headingDegrees = .nan
            totalDegrees = .nan
            return
        }

        func rmsDegrees(_ values: [Double]) -> Double {
            let meanSquare = values.reduce(0) { $0 + $1 * $1 } / Double(values.count)
            return meanSquare.squareRoot() * 180 / .pi
        }
        let inclinations = valid.map { 2 * Double.acos(min(1, (($0.w * $0.w + $0.z * $0.z)).squareRoot())) }
        inclinationDegrees = rmsDegrees(inclinations)
        sampleIndices = errors.indices.filter { errors[$0] != nil }
        inclinationSeriesDegrees = inclinations.map { $0 * 180 / .pi }

        // Signed heading error of each sample, wrapped to (-π, π].
        let headings = valid.map { e -> Double in
            let psi = 2 * Double.atan2(y: e.z, x: e.w)
            return Double.atan2(y: Double.sin(psi), x: Double.cos(psi))
        }
        func circularMean(_ angles: ArraySlice<Double>) -> Double {
            let s = angles.reduce(0) { $0 + Double.sin($1) }
            let c = angles.reduce(0) { $0 + Double.cos($1) }
            return Double.atan2(y: s / Double(angles.count), x: c / Double(angles.count))
        }
        func aligned(_ offset: Double) -> [Quaternion] {
            let rz = Quaternion(w: Double.cos(-offset / 2), x: 0, y: 0, z: Double.sin(-offset / 2))
            return valid.map { e in
                let a = rz * e
                return a.w < 0 ? Quaternion(w: -a.w, x: -a.x, y: -a.y, z: -a.z) : a
            }
        }
        let headingAligned = aligned(circularMean(headings[...]))
        headingDegrees = rmsDegrees(headingAligned.map { 2 * Double.atan(abs($0.z / $0.w)) })
        headingSeriesDegrees = headingAligned.map { 2 * Double.atan($0.z / $0.w) * 180 / .pi }
        let firstSecond = max(1, Int(sampleRateHertz.rounded()))
        let startOffset = circularMean(headings.prefix(firstSecond))
        totalDegrees = rmsDegrees(aligned(startOffset).map { 2 * Double.acos(min(1, abs($0.w))) })
    }
}

extension OrientationErrorMetrics {
    /// The three figures alone, in degrees.
    public struct Summary: Sendable, Equatable {
        /// Inclination error.
        public var inclination: Double
        /// Heading error (mean offset removed).
        public var heading: Double
        /// Total error (start offset removed).
        public var total: Double

        /// Creates a summary.
        public init(_ inclination: Double, _ heading: Double, _ total: Double) {
            self.inclination = inclination
            self.heading = heading
            self.total = total
        }
    }

    /// The three figures alone.
    public var summary: Summary { Summary(inclinationDegrees, headingDegrees, totalDegrees) }
}
