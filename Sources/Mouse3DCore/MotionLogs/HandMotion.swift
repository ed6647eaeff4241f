import RealModule

/// Synthetic hand-held motion with exact truth, for judging the fusion on what a hand does with a
/// controller rather than on what one recording happened to contain.
///
/// Everything is drawn from the seed: turns (angular velocity as a sum of slow random sinusoids per
/// axis, in bouts with still holds between them), sustained translation (an acceleration of
/// 0.5–5 m/s² in a random direction over an arm's reach, then the same braking, so the hand ends at
/// rest),
/// taps (half-sine force spikes of 2–6 g for 5–15 ms), vibration (50–200 Hz in the sensor frame for a
/// few seconds, as a rumble motor makes), and a gyroscope with a constant bias of up to ±1 °/s per axis
/// and white noise, as a DualSense's uncalibrated gyroscope has, a scale error of up to ±1 % per axis
/// and axes misaligned by up to ±0.5°. With ``shaking``, bursts of a hand shaking the controller hard
/// (oscillating translation of several g for 5–30 s, the wrist turning with it); with
/// ``accelerometerRangeStandardGravities`` and ``gyroscopeRangeDegreesPerSecond``, sensors that saturate
/// per axis as real ones do.
/// The truth is integrated at eight sub-steps per sample, far finer than any filter error.
public struct HandMotion: Sendable {
    /// Length of the motion, in seconds; the first and last five are still.
    public var durationSeconds: Double
    /// Sample rate, in Hz.
    public var sampleRateHertz: Double
    /// Seed of everything random.
    public var seed: UInt64
    /// Largest gyroscope bias per axis, in rad/s (1 °/s).
    public var maximumGyroBiasRadiansPerSecond = 1.0 * .pi / 180
    /// Standard deviation of white gyroscope noise per sample, in rad/s (0.1 °/s).
    public var gyroNoiseRadiansPerSecond = 0.1 * .pi / 180
    /// Standard deviation of white accelerometer noise per sample, in m/s².
    public var accelerometerNoiseMetersPerSecondSquared = 0.03
    /// Largest gyroscope scale error per axis, as a fraction (1 %).
    public var maximumGyroScaleError = 0.01
    /// Largest misalignment of each gyroscope axis towards each other axis, in radians (0.5°).
    public var maximumGyroMisalignmentRadians = 0.5 * .pi / 180
    /// Bursts of hard shaking, or `nil` for none.
    public var shaking: Shaking?
    /// The accelerometer's range per axis, in g: a reading beyond it reads as the limit (saturation).
    /// `nil`: an accelerometer that never saturates.
    public var accelerometerRangeStandardGravities: Double?
    /// The gyroscope's range per axis, in °/s: a faster turn reads as the limit (saturation). `nil`: a
    /// gyroscope that never saturates.
    public var gyroscopeRangeDegreesPerSecond: Double?

    /// A hand shaking the controller: bursts of back-and-forth translation along a random direction, a
    /// sinusoid whose amplitude is drawn from `peakStandardGravities`/2 up to `peakStandardGravities`
    /// and whose frequency from 1–4 Hz, for 5–30 s with 0.3 s ramps, then still for 3–15 s. The wrist
    /// turns with it: 0.5–3 rad/s at the same frequency about a random axis.
    public struct Shaking: Sendable, Equatable {
        /// The largest amplitude of the translation, in g.
        public var peakStandardGravities: Double
        /// Shaking up to `peak` g.
        public init(peakStandardGravities: Double = 4) { self.peakStandardGravities = peakStandardGravities }
    }

    /// A motion of `seconds` at `hertz`, drawn from `seed`.
    public init(seconds: Double = 120, hertz: Double = 250, seed: UInt64 = 1) {
        durationSeconds = seconds
        sampleRateHertz = hertz
        self.seed = seed
    }

    /// A stretch of time during which something happens.
    struct Episode {
        var start: Double
        var duration: Double
        var end: Double { start + duration }
        func contains(_ t: Double) -> Bool { t >= start && t < end }
    }

    struct Translation {
        var episode: Episode
        var acceleration: SIMD3<Double>
    }
    struct Tap {
        var episode: Episode
        var peak: SIMD3<Double>
    }
    struct Vibration {
        var episode: Episode
        var hertz: Double
        var amplitude: SIMD3<Double>
        var turn: SIMD3<Double>
    }
    struct Wave {
        var amplitude: SIMD3<Double>
        var hertz: Double
        var phase: SIMD3<Double>
    }
    struct Shake {
        var episode: Episode
        var hertz: Double
        var acceleration: SIMD3<Double>
        var turn: SIMD3<Double>
        var turnPhase: Double

        /// 0 outside, 1 inside, raised-cosine ramps of 0.3 s at both ends.
        func envelope(_ t: Double) -> Double {
            guard episode.contains(t) else { return 0 }
            let ramp = 0.3
            let edge = min(t - episode.start, episode.end - t)
            return edge >= ramp ? 1 : 0.5 - 0.5 * Double.cos(.pi * edge / ramp)
        }
    }

    /// The drawn plan of the whole motion.
    struct Plan {
        var waves: [Wave] = []
        var bouts: [Episode] = []
        var translations: [Translation] = []
        var taps: [Tap] = []
        var vibrations: [Vibration] = []
        var shakes: [Shake] = []
        var bias = SIMD3<Double>.zero
        /// Turns the true angular velocity into what the gyroscope measures (before bias and noise):
        /// scale errors on the diagonal, misalignment off it.
        var gyroMatrix = Matrix3.diagonal(1.0)

        /// How strongly the turns are on at `t`: 0 in holds, 1 in bouts, raised-cosine edges of 0.5 s.
        func envelope(_ t: Double) -> Double {
            for bout in bouts where t >= bout.start - 0.5 && t < bout.end + 0.5 {
                if t < bout.start { return 0.5 - 0.5 * Double.cos(.pi * (t - bout.start + 0.5) / 0.5) }
                if t >= bout.end { return 0.5 + 0.5 * Double.cos(.pi * (t - bout.end) / 0.5) }
                return 1
            }
            return 0
        }

        /// The true angular velocity in the sensor frame, in rad/s.
        func angularVelocity(_ t: Double) -> SIMD3<Double> {
            let e = envelope(t)
            var omega = SIMD3<Double>.zero
            if e > 0 {
                for wave in waves {
                    let x = 2 * Double.pi * wave.hertz * t
                    omega +=
                        wave.amplitude
                        * SIMD3(
                            Double.sin(x + wave.phase.x), Double.sin(x + wave.phase.y), Double.sin(x + wave.phase.z))
                }
                omega *= e
            }
            for v in vibrations where v.episode.contains(t) {
                omega += v.turn * Double.sin(2 * .pi * v.hertz * (t - v.episode.start))
            }
            for s in shakes where s.episode.contains(t) {
                omega += s.turn * (s.envelope(t) * Double.sin(2 * .pi * s.hertz * (t - s.episode.start) + s.turnPhase))
            }
            return omega
        }

        /// Linear acceleration in the reference frame and vibration in the sensor frame, in m/s².
        func accelerations(_ t: Double) -> (reference: SIMD3<Double>, sensor: SIMD3<Double>) {
            var reference = SIMD3<Double>.zero
            for move in translations where t >= move.episode.start && t < move.episode.start + 2 * move.episode.duration
            {
                reference += move.episode.contains(t) ? move.acceleration : -move.acceleration
            }
            for tap in taps where tap.episode.contains(t) {
                reference += tap.peak * Double.sin(.pi * (t - tap.episode.start) / tap.episode.duration)
            }
            for s in shakes where s.episode.contains(t) {
                reference += s.acceleration * (s.envelope(t) * Double.sin(2 * .pi * s.hertz * (t - s.episode.start)))
            }
            var sensor = SIMD3<Double>.zero
            for v in vibrations where v.episode.contains(t) {
                sensor += v.amplitude * Double.sin(2 * .pi * v.hertz * (t - v.episode.start))
            }
            return (reference, sensor)
        }
    }

    func plan() -> Plan {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 17)
        func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &random) }
        func direction() -> SIMD3<Double> {
            let v = random.nextGaussian3()
            return v / max(length(v), 1e-9)
        }
        var plan = Plan()
        plan.bias = SIMD3(uniform(-1...1), uniform(-1...1), uniform(-1...1)) * maximumGyroBiasRadiansPerSecond
        // Turns: three slow waves, about 1 rad/s RMS in all, in bouts of 5–15 s with holds of 1–5 s.
        for _ in 0..<3 {
            plan.waves.append(
                Wave(
                    amplitude: SIMD3(uniform(0.2...0.9), uniform(0.2...0.9), uniform(0.2...0.9)),
                    hertz: uniform(0.1...1.5),
                    phase: SIMD3(uniform(0...6.3), uniform(0...6.3), uniform(0...6.3))))
        }
        let end = durationSeconds - 5
        var t = 5.0
        while t < end {
            let bout = Episode(start: t + 0.5, duration: min(uniform(5...15), end - 0.5 - t - 0.5))
            if bout.duration > 0 { plan.bouts.append(bout) }
            t = bout.end + 0.5 + uniform(1...5)
        }
        // Sustained translation, every 3–10 s: a push of 0.5–5 m/s² and the same braking, over 0.1–0.8 m
        // (an arm's reach: accelerating for T covers a·T², so T = √(d/a), 0.14–1.3 s).
        t = 5 + uniform(0...3)
        while true {
            let distance = uniform(0.1...0.8)
            let acceleration = direction() * uniform(0.5...5)
            let seconds = (distance / length(acceleration)).squareRoot()
            guard t + 2 * seconds < end else { break }
            plan.translations.append(
                Translation(episode: Episode(start: t, duration: seconds), acceleration: acceleration))
            t += 2 * seconds + uniform(3...10)
        }
        // Taps, one every 2–8 s.
        t = 5 + uniform(0...2)
        while t < end {
            plan.taps.append(
                Tap(
                    episode: Episode(start: t, duration: uniform(0.005...0.015)),
                    peak: direction() * uniform(2...6) * standardGravityMetersPerSecondSquared))
            t += uniform(2...8)
        }
        // Vibration bursts of 1–5 s, one every 10–30 s.
        t = 5 + uniform(2...10)
        while t < end {
            let seconds = min(uniform(1...5), end - t)
            plan.vibrations.append(
                Vibration(
                    episode: Episode(start: t, duration: seconds), hertz: uniform(50...200),
                    amplitude: direction() * uniform(1...5), turn: direction() * uniform(0.01...0.05)))
            t += seconds + uniform(10...30)
        }
        // Drawn after everything above, so that a motion without them is the one it always was.
        let scale = SIMD3(uniform(-1...1), uniform(-1...1), uniform(-1...1)) * maximumGyroScaleError
        var m = Matrix3.diagonal(1.0)
        m.r0 = SIMD3(
            1 + scale.x, uniform(-1...1) * maximumGyroMisalignmentRadians,
            uniform(-1...1) * maximumGyroMisalignmentRadians)
        m.r1 = SIMD3(
            uniform(-1...1) * maximumGyroMisalignmentRadians, 1 + scale.y,
            uniform(-1...1) * maximumGyroMisalignmentRadians)
        m.r2 = SIMD3(
            uniform(-1...1) * maximumGyroMisalignmentRadians, uniform(-1...1) * maximumGyroMisalignmentRadians,
            1 + scale.z)
        plan.gyroMatrix = m
        if let shaking {
            let peak = shaking.peakStandardGravities * standardGravityMetersPerSecondSquared
            t = 5 + uniform(2...10)
            while t + 5 < end {
                let seconds = min(uniform(5...30), end - t)
                plan.shakes.append(
                    Shake(
                        episode: Episode(start: t, duration: seconds), hertz: uniform(1...4),
                        acceleration: direction() * uniform(peak / 2...peak), turn: direction() * uniform(0.5...3),
                        turnPhase: uniform(0...6.3)))
                t += seconds + uniform(3...15)
            }
        }
        return plan
    }

    /// Every sample with its true attitude; the truth's level frame has Z up and starts tilted by a
    /// random 0–30°.
    public func generate() -> [SyntheticMotion.Point] {
        let plan = plan()
        var random = SplitMix64(seed: seed)
        let period = 1 / sampleRateHertz
        let count = Int(durationSeconds * sampleRateHertz)
        let substeps = 8
        let h = period / Double(substeps)
        let tiltAxis = SIMD3(Double.random(in: -1...1, using: &random), Double.random(in: -1...1, using: &random), 0)
        var attitude =
            length(tiltAxis) > 1e-6
            ? Quaternion(axis: tiltAxis / length(tiltAxis), angleRadians: Double.random(in: 0...0.5, using: &random))
            : .identity
        var points: [SyntheticMotion.Point] = []
        points.reserveCapacity(count)
        for i in 0..<count {
            let t = Double(i) * period
            if i > 0 {
                // From the previous sample's time to this one, at the midpoint rate of each sub-step.
                for k in 0..<substeps {
                    let omega = plan.angularVelocity(t - period + (Double(k) + 0.5) * h)
                    attitude = (attitude * SyntheticMotion.rotation(omega, seconds: h)).normalized
                }
            }
            let (reference, sensor) = plan.accelerations(t)
            let force =
                attitude.conjugate.rotate(SIMD3(0, 0, standardGravityMetersPerSecondSquared) + reference) + sensor
            var gyro =
                plan.gyroMatrix * plan.angularVelocity(t) + plan.bias + gyroNoiseRadiansPerSecond
                * random.nextGaussian3()
            if let range = gyroscopeRangeDegreesPerSecond {
                let limit = SIMD3(repeating: range * .pi / 180)
                gyro = gyro.clamped(lowerBound: -limit, upperBound: limit)
            }
            var measured = force + accelerometerNoiseMetersPerSecondSquared * random.nextGaussian3()
            if let range = accelerometerRangeStandardGravities {
                let limit = SIMD3(repeating: range * standardGravityMetersPerSecondSquared)
                measured = measured.clamped(lowerBound: -limit, upperBound: limit)
            }
            points.append(
                SyntheticMotion.Point(
                    sample: MotionSample(
                        timestampNanoseconds: Int64((t * 1e9).rounded()),
                        angularVelocityRadiansPerSecond: gyro,
                        specificForceMetersPerSecondSquared: measured),
                    truth: attitude))
        }
        return points
    }
}
