import Mouse3DCore
import Testing

@Suite("Gyroscope calibration at rest")
struct GyroCalibrationTests {
    static func still(seconds: Double, bias: SIMD3<Double>, noise: Double = 0.002, from start: Double = 0)
        -> [MotionSample]
    {
        var motion = SyntheticMotion(segments: [.init(seconds: seconds)], sampleRateHertz: 100)
        motion.gyroBiasRadiansPerSecond = bias
        motion.gyroNoiseRadiansPerSecond = noise
        motion.accelerometerNoiseMetersPerSecondSquared = 0.02
        return motion.generate().map { p in
            var s = p.sample
            s.timestampNanoseconds += Int64(start * 1e9)
            return s
        }
    }

    @Test("Still for the required time: the mean is the bias, the spread the noise")
    func measuresStill() {
        let bias = SIMD3(0.6, -0.5, 0.8) * .pi / 180
        var calibrator = GyroCalibrator(seconds: 5)
        var last = GyroCalibrator.Progress.collecting(0)
        for s in Self.still(seconds: 10, bias: bias) {
            last = calibrator.add(s)
            if last == .done { break }
        }
        #expect(last == .done)
        let result = try! #require(calibrator.result)
        #expect(length(result.bias - bias) < 0.0005, "\(result.bias) against \(bias)")
        #expect(abs(result.noise - 0.002) < 0.0003)
        #expect(result.samples == 501 && calibrator.restarts == 0)
    }

    @Test("A turn in the middle starts it over, and the motion does not leak into the bias")
    func motionRestarts() {
        let bias = SIMD3(0.01, 0, -0.01)
        var samples = Self.still(seconds: 3, bias: bias)
        var turning = SyntheticMotion(
            segments: [.init(seconds: 1, radiansPerSecond: SIMD3(0, 0, 1))], sampleRateHertz: 100)
        turning.gyroBiasRadiansPerSecond = bias
        samples += turning.generate().dropFirst().map { p in
            var s = p.sample
            s.timestampNanoseconds += 3_000_000_000
            return s
        }
        samples += Self.still(seconds: 6, bias: bias, from: 4.01)
        var calibrator = GyroCalibrator(seconds: 5)
        var moved = 0
        for s in samples { if calibrator.add(s) == .moved { moved += 1 } }
        #expect(moved >= 1 && calibrator.restarts >= 1)
        let result = try! #require(calibrator.result)
        #expect(length(result.bias - bias) < 0.001, "\(result.bias)")
    }

    @Test("The file round-trips; a bad bias names the file and line")
    func file() throws {
        let c = GyroCalibration(
            device: "evdev 054c:0ce6:a0:b1:c2:d3:e4:f5", biasRadiansPerSecond: SIMD3(0.01, -0.002, 0.0005),
            samples: 1250, noiseRadiansPerSecond: 0.0017)
        let back = try GyroCalibration(parsing: c.text, file: "f")
        #expect(
            back.device == c.device && back.samples == 1250
                && length(back.biasRadiansPerSecond - c.biasRadiansPerSecond) < 1e-12)
        let bad = c.text.replacingOccurrences(
            of: "gyro_bias_degrees_per_second = \"", with: "gyro_bias_degrees_per_second = \"x ")
        #expect(throws: KeyValueText.ParseError.self) { try GyroCalibration(parsing: bad, file: "f") }
        do {
            _ = try GyroCalibration(parsing: bad, file: "f")
        } catch {
            #expect(error.description.hasPrefix("f:") && error.description.contains("run `mouse3d calibrate` again"))
        }
    }

    @Test("Device keys: a gamepad by vendor, product and unique id; IIO by name and path; file names safe and distinct")
    func keys() {
        let pad = GyroCalibration.deviceKey(
            kind: "evdev", name: "DualSense", deviceID: "054c:0ce6", uniqueID: "a0:b1:c2:d3:e4:f5", sysfsPath: nil)
        #expect(pad == "evdev 054c:0ce6:a0:b1:c2:d3:e4:f5")
        let iio = GyroCalibration.deviceKey(
            kind: "iio", name: "gyro_3d", deviceID: nil, uniqueID: nil, sysfsPath: "/sys/bus/iio/devices/iio:device1")
        #expect(iio == "iio gyro_3d /sys/bus/iio/devices/iio:device1")
        let a = GyroCalibration.fileName(for: "log /tmp/a b.csv")
        let b = GyroCalibration.fileName(for: "log /tmp/a_b.csv")
        #expect(a != b && !a.contains("/") && !a.contains(" ") && a.hasSuffix(".calibration"))
    }
}

@Suite("Recalibrating on a button while running")
struct RecalibrateButtonTests {
    @Test("The button starts a measurement; 5 s still later the fusion uses the bias and hands it out to store, once")
    func recalibrate() throws {
        let bias = SIMD3(0.6, -0.5, 0.8) * .pi / 180
        let button: Int32 = 0x130  // BTN_SOUTH
        let map = GamepadButtonMap(recalibrate: button)
        #expect(map.codes == [button])
        var fusion = MotionFusion(parameters: AttitudeEstimatorParameters(), device: "evdev 054c:0ce6:aa")
        #expect(map.apply(code: button, pressed: true, to: &fusion) == .calibrating)
        #expect(fusion.isCalibrating)
        var event: MotionFusion.CalibrationEvent?
        var at = 0
        for (i, s) in GyroCalibrationTests.still(seconds: 8, bias: bias).enumerated() {
            _ = fusion.fuse(s, nowNanoseconds: 0)
            if let e = fusion.takeCalibrationEvent() {
                event = e
                at = i
                break
            }
        }
        guard case .done(let c)? = event else {
            Issue.record("no calibration: \(String(describing: event))")
            return
        }
        #expect(at == 500 && c.device == "evdev 054c:0ce6:aa" && length(c.biasRadiansPerSecond - bias) < 0.0005)
        #expect(
            length(fusion.gyroBiasRadiansPerSecond - c.biasRadiansPerSecond) < 1e-9, "the fusion starts from it at once"
        )
        #expect(!fusion.isCalibrating && fusion.takeCalibrationEvent() == nil)
        #expect(map.apply(code: button, pressed: false, to: &fusion) == .none)
    }
}
