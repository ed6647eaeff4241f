import RealModule

extension AttitudeEstimator {
    /// Feeds one sample: integrates the gyroscope over the time since the previous sample, then
    /// corrects with the accelerometer and updates the bias estimate.
    public mutating func update(_ sample: MotionSample) {
        counters.samples += 1
        let gyro = sample.angularVelocityRadiansPerSecond
        let accel = sample.specificForceMetersPerSecondSquared
        guard isFinite(gyro), isFinite(accel) else {
            counters.invalidSamples += 1
            return
        }
        guard let dt = stepSeconds(to: sample.timestampNanoseconds) else { return }
        let ts = tuning.accelerometer.samplePeriodSeconds

        detectRest(gyro: gyro, accel: accel, periodSeconds: ts)
        let rate = integrateGyro(gyro, seconds: dt)
        if accel != .zero {
            correct(
                accel: accel, rate: rate,
                angularSpeedSquared: dot(gyro - gyroBiasRadiansPerSecond, gyro - gyroBiasRadiansPerSecond),
                periodSeconds: ts)
        }
    }

    /// Works out how long to integrate the gyroscope for, or `nil` when this sample's time is unusable.
    mutating func stepSeconds(to t: Int64) -> Double? {
        guard let last = lastTimestampNanoseconds else {
            lastTimestampNanoseconds = t
            return 0  // first sample: nothing to integrate, but level from its accelerometer.
        }
        lastTimestampNanoseconds = t
        let (gapNanoseconds, overflow) = t.subtractingReportingOverflow(last)
        guard !overflow, gapNanoseconds > 0 else {
            // Time stood still or went back: do not integrate. Re-anchor to this timestamp so that a
            // clock that stepped back is followed; a one-off glitch costs one clamped step below.
            counters.timestampGlitches += 1
            forgetSaturation()
            return nil
        }
        let gap = Double(gapNanoseconds) * 1e-9
        if gap > parameters.resetGapSeconds {
            counters.resets += 1
            relevel()
            return 0
        }
        if gap > parameters.maximumGapSeconds {
            counters.gapsClamped += 1
            return nominalPeriodSeconds ?? Self.provisionalPeriodSeconds
        }
        trackPeriod(gap)
        return gap
    }

    /// Follows the regular sample period and re-tunes the filters when it changes by more than 5 %.
    mutating func trackPeriod(_ gap: Double) {
        let period: Double
        if let nominal = nominalPeriodSeconds {
            period = nominal + 0.01 * (gap - nominal)
        } else {
            period = gap
            // The warm-up averages span the intended time, now that the rate is known.
            accelerometerLowPass.setWarmUpLength(Int(parameters.accelerometerTimeConstantSeconds / gap))
            accelerometerLongLowPass.setWarmUpLength(Int(parameters.accelerometerTimeConstantSeconds / gap))
            biasRotationLowPass.setWarmUpLength(
                Int(
                    parameters.accelerometerTimeConstantSeconds
                        / (gap * Double(Tuning.biasUpdateInterval(periodSeconds: gap)))))
            restGyroLowPass.setWarmUpLength(Int(parameters.restTimeConstantSeconds / gap))
            restAccelerometerLowPass.setWarmUpLength(Int(parameters.restTimeConstantSeconds / gap))
        }
        nominalPeriodSeconds = period
        let tuned = tuning.accelerometer.samplePeriodSeconds
        if abs(period - tuned) > 0.05 * tuned {
            tuning = Tuning(parameters, periodSeconds: period)
        }
    }

    /// Starts over from the next accelerometer reading, keeping the bias estimate.
    mutating func relevel() {
        accelerometerLowPass.reset()
        accelerometerLongLowPass.reset()
        biasRotationLowPass.reset()
        restGyroLowPass.reset()
        restAccelerometerLowPass.reset()
        restSeconds = 0
        isAtRest = false
        forgetSaturation()
    }

    mutating func detectRest(gyro: SIMD3<Double>, accel: SIMD3<Double>, periodSeconds ts: Double) {
        let gyroMean = restGyroLowPass.step(gyro, tuning.rest)
        let gyroDeviation = gyro - gyroMean
        let accelMean = restAccelerometerLowPass.step(accel, tuning.rest)
        let accelDeviation = accel - accelMean
        let gyroLimit = parameters.restGyroscopeThresholdRadiansPerSecond
        let accelLimit = parameters.restAccelerometerThresholdMetersPerSecondSquared
        let biasLimit = parameters.biasLimitRadiansPerSecond
        if dot(gyroDeviation, gyroDeviation) >= gyroLimit * gyroLimit
            || max(gyroMean.max(), -gyroMean.min()) > biasLimit
            || dot(accelDeviation, accelDeviation) >= accelLimit * accelLimit
        {
            restSeconds = 0
            isAtRest = false
        } else {
            restSeconds += ts
            if restSeconds >= parameters.restMinimumDurationSeconds { isAtRest = true }
        }
    }

    /// Strapdown integration of the bias- and scale-corrected angular velocity over `seconds`;
    /// returns that angular velocity.
    mutating func integrateGyro(_ gyro: SIMD3<Double>, seconds: Double) -> SIMD3<Double> {
        let omega = (gyro - gyroBiasRadiansPerSecond) * gyroScaleCorrection
        guard seconds > 0 else { return omega }
        let (s, cosine) = halfAngleStep(rateSquared: dot(omega, omega), seconds: seconds)
        let step = Quaternion(w: cosine, x: omega.x * s, y: omega.y * s, z: omega.z * s)
        // Both factors are unit to rounding, so the product is too: a Newton step keeps it there.
        gyroQuaternion = (gyroQuaternion * step).renormalizedNearUnit
        return omega
    }

    /// Accelerometer correction of the inclination and the bias update that goes with it.
    /// `rate`: the corrected angular velocity, for the bias and scale step.
    mutating func correct(
        accel measured: SIMD3<Double>, rate: SIMD3<Double>, angularSpeedSquared: Double, periodSeconds ts: Double
    ) {
        let g = standardGravityMetersPerSecondSquared
        var accel = measured
        if let range = accelerometerRangeMetersPerSecondSquared,
            max(accel.max(), -accel.min()) > range - 2 * g
        {
            accel = desaturated(accel, range: range)
        }
        if let limit = parameters.impactLimitStandardGravities {
            let magnitude = length(accel)
            if magnitude > limit * g { accel *= limit * g / magnitude }
        }

        let inertial = gyroQuaternion.rotate(accel)
        // How far the instantaneous force leans away from the estimated vertical, averaged briefly:
        // zero-mean hand motion averages out, a sustained push does not (only if asked for).
        var leaning = false
        if let limit = tuning.disturbanceLimitSquared {
            let levelAccel = inclinationCorrection.rotate(inertial)
            let horizontal = SIMD2(levelAccel.x, levelAccel.y) / max(length(accel), 1e-9)
            disturbance += (horizontal - disturbance) * min(1, ts / parameters.disturbanceTimeConstantSeconds)
            leaning = (disturbance * disturbance).sum() > limit
        }
        if parameters.adaptiveTimeConstantRangeSeconds != nil {
            adaptTimeConstant(inertialForce: inertial, angularSpeedSquared: angularSpeedSquared, periodSeconds: ts)
        }

        // Low-pass in the inertial frame: linear accelerations average out, gravity stays. The warm-up
        // mean (the first τ seconds) weighs every sample equally, so there a sample that leans or is
        // far from 1 g on its own is left out (the very first one always counts).
        let skipped =
            accelerometerLowPass.isWarmingUp && !accelerometerLowPass.isEmpty
            && rejectedSeconds <= parameters.rejectionRecoverySeconds && isOutlierWhileWarmingUp(inertial)
        var filtered = skipped ? accelerometerLowPass.output : accelerometerLowPass.step(inertial, tuning.accelerometer)
        if parameters.adaptiveTimeConstantRangeSeconds != nil {
            let long =
                skipped
                ? accelerometerLongLowPass.output : accelerometerLongLowPass.step(inertial, tuning.accelerometerLong)
            filtered += (long - filtered) * longLowPassWeight
        }
        let up = inclinationCorrection.rotate(filtered)
        let squared = dot(up, up)
        var rejected = leaning || !tuning.acceptedForceSquared.contains(squared)
        if rejected {
            rejectedSeconds += ts
            if rejectedSeconds > parameters.rejectionRecoverySeconds { rejected = false }
        } else {
            rejectedSeconds = 0
        }
        isRejectingAccelerometer = rejected
        var correctionRate: SIMD2<Double>? = nil
        if rejected {
            counters.accelerometerRejections += 1
        } else if up.z > 0, up.z * up.z > 0.998 * squared {
            // Within 2.6° of vertical, as every step after the first is: the smallest rotation that
            // takes `up` to +Z is about x by up.y / up.z and about y by -up.x / up.z, to within a part
            // in θ²/4 of itself (5e-4 at 2.6°, 1e-8 at the 0.01° of a usual step; what is left is
            // corrected at the next step), with no square root. The Newton step keeps the product unit.
            let k = 0.5 / up.z
            let correction = Quaternion(w: 1, x: up.y * k, y: -up.x * k, z: 0)
            inclinationCorrection = (correction * inclinationCorrection).renormalizedNearUnit
            correctionRate = SIMD2(2 * up.x * k, 2 * up.y * k)
        } else {
            let unit = up / squared.squareRoot()
            // The smallest rotation that takes `unit` to +Z.
            let w = ((unit.z + 1) / 2).squareRoot()
            let correction =
                w > 1e-6
                ? Quaternion(w: w, x: 0.5 * unit.y / w, y: -0.5 * unit.x / w, z: 0)
                : Quaternion(w: 0, x: 1, y: 0, z: 0)
            inclinationCorrection = (correction * inclinationCorrection).renormalizedNearUnit
            correctionRate = SIMD2(unit.x, unit.y)
        }
        updateBias(correction: correctionRate, rate: rate, periodSeconds: ts)
    }

    /// Whether a reading leans more than 15° from the estimated vertical or is more than the rejection
    /// fraction away from 1 g: left out of the warm-up mean, where one sample weighs as much as seconds.
    func isOutlierWhileWarmingUp(_ inertial: SIMD3<Double>) -> Bool {
        let g = standardGravityMetersPerSecondSquared
        let level = inclinationCorrection.rotate(inertial)
        let squared = dot(level, level)
        let magnitude = squared.squareRoot()
        return level.x * level.x + level.y * level.y > Tuning.warmUpLeanLimitSquared * squared
            || abs(magnitude - g) > parameters.linearAccelerationRejectionFraction * g
    }

    /// A reading whose linear acceleration (the reading minus the estimated gravity) is cut to the same
    /// limit in both directions on every axis: the range less the gravity on that axis, the most the
    /// sensor can show on the side where gravity adds to it. Saturation cuts an axis's peaks on that
    /// side only, so a back-and-forth motion that averages to zero no longer does, and the low-pass
    /// would take the difference for gravity; cut alike on both sides, it averages to zero again.
    ///
    /// Not on an axis that has saturated at both ends within the last second: the sensor has cut it
    /// on both sides already, and a cut centred on the estimate would pull the readings towards the
    /// estimate (an estimate off by ε moves their mean by about 2ε times the saturated share, a
    /// feedback that outgrows the correction when most readings saturate).
    @inline(never)
    mutating func desaturated(_ accel: SIMD3<Double>, range: Double) -> SIMD3<Double> {
        let g = standardGravityMetersPerSecondSquared
        let now = Double(lastTimestampNanoseconds ?? 0) * 1e-9
        // A little inside the range: drivers calibrate after the sensor saturates, so its cut may sit a
        // few percent off the range they declare.
        let edge = SIMD3(repeating: range * 0.97)
        topSaturationSeconds.replace(with: now, where: accel .>= edge)
        bottomSaturationSeconds.replace(with: now, where: accel .<= -edge)
        let recent = SIMD3(repeating: now - 1)
        let bothEnds = (topSaturationSeconds .> recent) .& (bottomSaturationSeconds .> recent)
        let gravity = (inclinationCorrection * gyroQuaternion).conjugate.rotate(SIMD3(0, 0, g))
        let magnitude = gravity.replacing(with: -gravity, where: gravity .< 0)
        let limit = (SIMD3(repeating: range) - magnitude).clamped(
            lowerBound: .zero, upperBound: SIMD3(repeating: range))
        return (gravity + (accel - gravity).clamped(lowerBound: -limit, upperBound: limit)).replacing(
            with: accel, where: bothEnds)
    }

    /// Follows how the sensor moves and sets the weight of the long accelerometer low-pass from it.
    ///
    /// Two errors compete in the low-passed accelerometer. Translation leaks through it: for motion
    /// well above the cut-off, the second-order low-pass passes a linear acceleration `a` at frequency
    /// `f` as about `a (f꜀/f)²`, a tilt error that falls as 1/τ². Gyroscope errors (scale, axis
    /// misalignment, bias, timing) grow with the angular speed `ω` and are corrected only over about τ:
    /// an error that grows as `ω τ`. Their sum is smallest at τ ∝ (a/ω)^⅓. `a` is the horizontal specific
    /// force in the level frame (gravity removed by the estimate), averaged over 0.1 s so that taps and
    /// vibration, which the low-pass removes anyway, do not count; both are mean squares over about
    /// ``AttitudeEstimatorParameters/motionStatisticsTimeConstantSeconds``.
    ///
    /// The time constant is not changed in the filter itself: changing a low-pass's cut-off while a
    /// large oscillation passes through it mixes that oscillation down to low frequencies, exactly the
    /// error it is meant to avoid. Two low-passes run side by side and their outputs are blended, with
    /// the weight that gives the leakage of a single low-pass at the wanted τ: (1−w)/τ₁² + w/τ₂² = 1/τ².
    @inline(__always)
    mutating func adaptTimeConstant(inertialForce: SIMD3<Double>, angularSpeedSquared: Double, periodSeconds ts: Double)
    {
        guard let range = parameters.adaptiveTimeConstantRangeSeconds else { return }
        let level = inclinationCorrection.rotate(inertialForce)
        let h = SIMD2(level.x, level.y)
        let alpha = min(1, ts / parameters.translationFilterTimeConstantSeconds)
        horizontalForceStage += (h - horizontalForceStage) * alpha
        horizontalForce += (horizontalForceStage - horizontalForce) * alpha
        let power = SIMD2((horizontalForce * horizontalForce).sum(), angularSpeedSquared)
        motionPower += (power - motionPower) * min(1, ts / parameters.motionStatisticsTimeConstantSeconds)
        adaptCountdown -= 1
        guard adaptCountdown <= 0 else { return }
        // Reconsidered every 20 ms: the statistics move over a second.
        adaptCountdown = max(1, Int(0.02 / ts))
        let ratio =
            motionPower.x.squareRoot() / (motionPower.y.squareRoot() + parameters.angularSpeedFloorRadiansPerSecond)
        let tau = min(
            max(parameters.adaptiveTimeConstantGain * Double.pow(ratio, 1.0 / 3), range.lowerBound), range.upperBound)
        accelerometerTimeConstantSeconds = tau
        let short = 1 / (range.lowerBound * range.lowerBound)
        let long = 1 / (range.upperBound * range.upperBound)
        longLowPassWeight = short > long ? (short - 1 / (tau * tau)) / (short - long) : 0
    }

    /// One Kalman step of the gyroscope bias estimate: from the rest average while resting, from the
    /// accelerometer correction while moving.
    mutating func updateBias(correction up: SIMD2<Double>?, rate: SIMD3<Double>, periodSeconds ts: Double) {
        let p = parameters
        guard p.motionBiasEstimation || p.restBiasEstimation else { return }
        // The attitude's rotation matrix, averaged over the block, is what the bias's low-pass is fed:
        // the quaternion's block mean (to second order in how far it turns in 20 ms) gives it without
        // a matrix per sample, and as the bias only changes at the block's end, the mean of R·bias is
        // the mean R times the bias.
        // The quaternion never changes sign from one sample to the next (see integrateGyro), so the sum
        // does not cancel.
        let q = inclinationCorrection * gyroQuaternion
        biasBlockSum += SIMD4(q.w, q.x, q.y, q.z)
        biasBlockRate += rate
        biasBlockCount += 1
        biasUpdateCountdown -= 1
        guard biasUpdateCountdown <= 0 else { return }
        biasUpdateCountdown = tuning.biasUpdateInterval
        let bias = gyroBiasRadiansPerSecond
        let mean = biasBlockSum
        let rotation = Quaternion(w: mean[0], x: mean[1], y: mean[2], z: mean[3]).normalized.rotationMatrix
        let meanRate = biasBlockRate / Double(max(biasBlockCount, 1))
        biasBlockSum = .zero
        biasBlockRate = .zero
        biasBlockCount = 0
        var packed = SIMD16<Double>.zero
        packed[0] = rotation.r0.x
        packed[1] = rotation.r0.y
        packed[2] = rotation.r0.z
        packed[3] = rotation.r1.x
        packed[4] = rotation.r1.y
        packed[5] = rotation.r1.z
        packed[6] = rotation.r2.x
        packed[7] = rotation.r2.y
        packed[8] = rotation.r2.z
        packed[9] = dot(rotation.r0, bias)
        packed[10] = dot(rotation.r1, bias)
        // The scale's regressor: R·ω (the block's mean rate), its horizontal rows, and their product
        // with the scale estimate (as R·bias is the bias's).
        packed[11] = dot(rotation.r0, meanRate)
        packed[12] = dot(rotation.r1, meanRate)
        packed[13] = gyroScaleError * packed[11]
        packed[14] = gyroScaleError * packed[12]
        let f = biasRotationLowPass.step(packed, tuning.biasLowPass)

        // The covariance grows while no measurement comes in, up to its initial value.
        biasScaleCovariance.grow(
            bias: tuning.biasProcessVariance, upTo: tuning.biasInitialVariance, scale: tuning.scaleProcessVariance,
            upTo: tuning.scaleInitialVariance)

        let measurement: Matrix3?  // nil: the identity, at rest
        let error: SIMD3<Double>
        let noise: SIMD3<Double>
        if isAtRest && p.restBiasEstimation {
            error = restGyroLowPass.output - bias
            measurement = nil
            noise = SIMD3(repeating: tuning.biasRestNoise)
        } else if p.motionBiasEstimation, let up {
            let r = Matrix3(SIMD3(f[0], f[1], f[2]), SIMD3(f[3], f[4], f[5]), SIMD3(f[6], f[7], f[8]))
            // The correction turned by atan(up.y) about x and -up.x about y this step: read as a rate,
            // it is what the bias left unexplained.
            // So does the scale (lanes 11–14: what the estimates of the last τ explained, less what
            // the current one would have).
            let scale = gyroScaleError
            error = SIMD3(
                -up.y / ts + f[9] - dot(r.r0, bias) + f[13] - scale * f[11],
                up.x / ts + f[10] - dot(r.r1, bias) + f[14] - scale * f[12],
                -dot(r.r2, bias))
            measurement = r
            noise = SIMD3(tuning.biasMotionNoise, tuning.biasMotionNoise, tuning.biasVerticalNoise)
        } else {
            return
        }
        let limit = SIMD3(repeating: p.biasLimitRadiansPerSecond)
        let e = error.clamped(lowerBound: -limit, upperBound: limit)
        // One Kalman step for the bias and the scale together (they explain the same corrections, and
        // while the device turns mostly one way a scale error looks like a bias): the state is
        // (bias, scale), in (0.01 °/s) and as a fraction; the measurement model is [R | R·ω], R and
        // R·ω low-passed as the accelerometer is, the vertical row for the bias only (the accelerometer
        // sees no turn about the vertical). At rest the scale column is zero (nothing turns), and the
        // scale moves only through its covariance with the bias.
        let k = 18_000 / Double.pi
        let scaleColumn =
            p.gyroScaleEstimation && measurement != nil ? SIMD3(f[11], f[12], 0) * k : SIMD3<Double>.zero
        let rows = measurement ?? .diagonal(1)
        let h0 = SIMD4(rows.r0, scaleColumn.x)
        let h1 = SIMD4(rows.r1, scaleColumn.y)
        let h2 = SIMD4(rows.r2, scaleColumn.z)
        var covariance = biasScaleCovariance
        // P Hᵀ, by column; S = H P Hᵀ + W.
        let c0 = covariance.times(h0)
        let c1 = covariance.times(h1)
        let c2 = covariance.times(h2)
        var innovation = Matrix3(
            SIMD3((h0 * c0).sum(), (h0 * c1).sum(), (h0 * c2).sum()),
            SIMD3((h1 * c0).sum(), (h1 * c1).sum(), (h1 * c2).sum()),
            SIMD3((h2 * c0).sum(), (h2 * c1).sum(), (h2 * c2).sum()))
        innovation.addToDiagonal(noise)
        guard let inverse = innovation.inverse else { return }
        // K = P Hᵀ S⁻¹, by column; state += K e; P -= K (P Hᵀ)ᵀ.
        let g0 = c0 * inverse.r0.x + c1 * inverse.r1.x + c2 * inverse.r2.x
        let g1 = c0 * inverse.r0.y + c1 * inverse.r1.y + c2 * inverse.r2.y
        let g2 = c0 * inverse.r0.z + c1 * inverse.r1.z + c2 * inverse.r2.z
        let step = g0 * e.x + g1 * e.y + g2 * e.z
        gyroBiasRadiansPerSecond = (bias + SIMD3(step.x, step.y, step.z)).clamped(lowerBound: -limit, upperBound: limit)
        if p.gyroScaleEstimation, step.w.isFinite {
            let scaleLimit = p.gyroScaleLimit
            gyroScaleError = min(max(gyroScaleError + step.w * k, -scaleLimit), scaleLimit)
            gyroScaleCorrection = 1 / (1 + gyroScaleError)
        }
        covariance.subtract(g0, c0)
        covariance.subtract(g1, c1)
        covariance.subtract(g2, c2)
        biasScaleCovariance = covariance
    }
}

/// The covariance of the bias's three axes (in (0.01 °/s)²) and the scale, a symmetric 4×4 by rows.
@usableFromInline struct BiasScaleCovariance: Sendable {
    var r0: SIMD4<Double>, r1: SIMD4<Double>, r2: SIMD4<Double>, r3: SIMD4<Double>

    init(bias: Double, scale: Double) {
        r0 = SIMD4(bias, 0, 0, 0)
        r1 = SIMD4(0, bias, 0, 0)
        r2 = SIMD4(0, 0, bias, 0)
        r3 = SIMD4(0, 0, 0, scale)
    }

    /// Adds process noise to each variance below its limit.
    mutating func grow(bias: Double, upTo biasLimit: Double, scale: Double, upTo scaleLimit: Double) {
        if r0.x < biasLimit { r0.x += bias }
        if r1.y < biasLimit { r1.y += bias }
        if r2.z < biasLimit { r2.z += bias }
        if r3.w < scaleLimit { r3.w += scale }
    }

    func times(_ v: SIMD4<Double>) -> SIMD4<Double> {
        SIMD4((r0 * v).sum(), (r1 * v).sum(), (r2 * v).sum(), (r3 * v).sum())
    }

    /// Subtracts the outer product g cᵀ.
    mutating func subtract(_ g: SIMD4<Double>, _ c: SIMD4<Double>) {
        r0 -= g.x * c
        r1 -= g.y * c
        r2 -= g.z * c
        r3 -= g.w * c
    }
}

func isFinite(_ v: SIMD3<Double>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }

/// For a rotation at `rateSquared` (rad/s)² over `seconds`: sin(θ/2) divided by the rate, and cos(θ/2),
/// θ the angle turned (both negated past 180°, so that cos(θ/2) ≥ 0). Where θ/2 < 0.05 rad (2,800 °/s
/// at 500 Hz), a short series in θ² needs neither a square root nor a division, accurate to 1e-16; the
/// library functions beyond.
@inline(__always)
func halfAngleStep(rateSquared: Double, seconds: Double) -> (sinOverRate: Double, cos: Double) {
    let halfSeconds = seconds / 2
    let x2 = rateSquared * halfSeconds * halfSeconds
    guard x2 < 0.0025 else {
        let rate = rateSquared.squareRoot()
        let (sine, cosine) = (Double.sin(rate * halfSeconds), Double.cos(rate * halfSeconds))
        // A step of more than 180° (a long gap while turning fast) as its negative, the same rotation:
        // the attitude quaternion then never jumps to its negative, and block means stay sound.
        return cosine < 0 ? (-sine / rate, -cosine) : (sine / rate, cosine)
    }
    let s = halfSeconds * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42)))
    let c = 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56)))
    return (s, c)
}
