/// Motion an emulated sensor reports: stretches of constant angular velocity and specific force in
/// the device's own axes, so a test knows the truth it injected.
public struct MotionScript: Sendable {
    /// One stretch.
    public struct Step: Sendable {
        /// How long, in seconds.
        public var seconds: Double
        /// Angular velocity about the device's x, y, z axes, in degrees per second.
        public var degreesPerSecond: SIMD3<Double>
        /// Specific force along x, y, z, in m/s² (at rest, +9.81 on the axis pointing up).
        public var metersPerSecondSquared: SIMD3<Double>

        /// Creates a step.
        public init(seconds: Double, degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>) {
            self.seconds = seconds
            self.degreesPerSecond = degreesPerSecond
            self.metersPerSecondSquared = metersPerSecondSquared
        }
    }

    /// The steps, in order.
    public let steps: [Step]
    /// Where each step ends, in seconds from the start (the last is the duration): the emulators
    /// look a step up for every sample, hundreds of times a second under TCG, so by binary search.
    private let ends: [Double]

    /// Creates a script.
    public init(_ steps: [Step]) {
        self.steps = steps
        var t = 0.0
        ends = steps.map {
            t += $0.seconds
            return t
        }
    }

    /// The index of the step in force at `seconds` from the start (the last one after the end).
    private func index(at seconds: Double) -> Int {
        var low = 0
        var high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if seconds < ends[middle] { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The step in force at `seconds` from the start (the last one after the end).
    public func step(at seconds: Double) -> Step { steps[index(at: seconds)] }

    /// The total duration in seconds.
    public var duration: Double { ends.last ?? 0 }

    /// What a gyroscope integrating over a sample reports when the sample lasted `deviceSeconds` on
    /// the device's clock while the script went from `from` to `to`: the script's angle over that
    /// stretch spread over the sample. The two differ when an emulator held at a gate
    /// (``ScriptGate``) meanwhile: the device's clock ran on, the motion did not.
    public func degreesPerSecond(from: Double, to: Double, overDeviceSeconds deviceSeconds: Double) -> SIMD3<Double> {
        guard to > from, deviceSeconds > 0 else { return meanDegreesPerSecond(from: from, to: to) }
        return meanDegreesPerSecond(from: from, to: to) * ((to - from) / deviceSeconds)
    }

    /// The mean angular velocity over [`from`, `to`] seconds (looping past the end): what a
    /// gyroscope integrating over that interval reports, so that reports spanning a change of step
    /// (or a stretch the emulator had to skip) still add up to the script's angle.
    public func meanDegreesPerSecond(from: Double, to: Double) -> SIMD3<Double> {
        let duration = duration
        guard to > from else { return step(at: from.truncatingRemainder(dividingBy: duration)).degreesPerSecond }
        var total = SIMD3<Double>.zero
        var t = from
        while t < to {
            let local = t.truncatingRemainder(dividingBy: duration)
            let i = index(at: local)
            // The end of the step in force at `t`, in the same time base.
            let end = t - local + ends[i]
            let until = min(to, max(end, t + 1e-9))
            total += steps[i].degreesPerSecond * (until - t)
            t = until
        }
        return total / (to - from)
    }
}
