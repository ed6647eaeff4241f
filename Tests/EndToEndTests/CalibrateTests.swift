import Foundation
import Mouse3DCore
import Testing

@Suite("mouse3d calibrate: the bias at rest, stored per device, used by run")
struct CalibrateTests {
    /// The yaw (radians) of every printed jsonl frame.
    func yaws(_ output: String) -> [Double] {
        output.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "\"yaw\":") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 != "," && $0 != "}" })
        }
    }

    @Test(
        "A still log with a known bias: calibrate measures it, run starts from it and drifts < 0.1 °/min; moving logs are refused"
    )
    func calibrateThenRun() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data"]
        let log = home + "/rest.csv"
        let made = try runMouse3D(
            ["simulate", "--motion", "rest", "--seconds", "70", "--rate", "100", "--output", log], configHome: home)
        #expect(made.status == 0, "\(made.errors)")

        // Before: run says it is not calibrated.
        let before = try runMouse3D(
            ["run", "--source", "replay:\(log)", "--speed", "max", "--format", "jsonl"], configHome: home,
            environment: environment)
        #expect(before.status == 0 && before.errors.contains("not calibrated"), "\(before.errors)")

        let calibrate = try runMouse3D(
            ["calibrate", "--source", "replay:\(log)"], configHome: home, environment: environment)
        #expect(calibrate.status == 0, "\(calibrate.errors)")
        // The known bias is 0.6/-0.5/0.8 °/s; 500 samples of 0.1 °/s noise measure it to about 0.005 °/s.
        let words = calibrate.output.split(separator: " ")
        let bias = try #require(words.firstIndex(of: "bias").map { words[$0 + 1] }, "\(calibrate.output)")
        let parts = bias.split(separator: "/").compactMap { Double($0) }
        #expect(
            parts.count == 3 && abs(parts[0] - 0.6) < 0.02 && abs(parts[1] + 0.5) < 0.02 && abs(parts[2] - 0.8) < 0.02,
            "\(bias)")
        let stored = try FileManager.default.contentsOfDirectory(atPath: home + "/data/mouse3d/calibration")
        #expect(stored.count == 1, "\(stored)")

        let after = try runMouse3D(
            ["run", "--source", "replay:\(log)", "--speed", "max", "--format", "jsonl"], configHome: home,
            environment: environment)
        #expect(
            after.status == 0 && after.errors.contains("gyroscope bias \(bias) °/s from calibration"), "\(after.errors)"
        )
        let yaw = yaws(after.output)
        #expect(yaw.count == 7001)
        // From 1 s on (after the level-up): the heading, which no accelerometer corrects, stays put.
        let drift = abs(yaw[7000] - yaw[100]) * 180 / .pi / (69.0 / 60)
        #expect(drift < 0.1, "drift \(drift) °/min with the calibration")
        let uncalibrated = yaws(before.output)
        let early = abs(uncalibrated[999] - uncalibrated[100]) * 180 / .pi / (9.0 / 60)
        let calibratedEarly = abs(yaw[999] - yaw[100]) * 180 / .pi / (9.0 / 60)
        print(
            "calibrate: bias \(bias); heading drift over 1–10 s: \(calibratedEarly) °/min calibrated, \(early) °/min learning; 1–70 s calibrated \(drift) °/min"
        )
        #expect(calibratedEarly < early, "the calibration must help while the filter is still learning the bias")
    }

    @Test("A log that never stays still is refused with what to do, and nothing is stored")
    func refusesMotion() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data"]
        let calibrate = try runMouse3D(
            ["calibrate", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--seconds", "5"], configHome: home,
            environment: environment)
        #expect(
            calibrate.status != 0 && calibrate.errors.contains("nothing stored")
                && calibrate.errors.contains("it moved"), "\(calibrate.errors)")
        #expect(!FileManager.default.fileExists(atPath: home + "/data/mouse3d/calibration"))
    }

    @Test("A damaged calibration file stops run with its path, line and what to do")
    func damagedFile() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data"]
        let log = home + "/rest.csv"
        _ = try runMouse3D(
            ["simulate", "--motion", "rest", "--seconds", "10", "--rate", "100", "--output", log], configHome: home)
        let calibrate = try runMouse3D(
            ["calibrate", "--source", "replay:\(log)", "--seconds", "2"], configHome: home, environment: environment)
        #expect(calibrate.status == 0, "\(calibrate.errors)")
        let folder = home + "/data/mouse3d/calibration"
        let file = folder + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first))
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "gyro_bias_degrees_per_second = \"", with: "gyro_bias_degrees_per_second = \"x ")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try runMouse3D(
            ["run", "--source", "replay:\(log)", "--speed", "max"], configHome: home, environment: environment)
        #expect(
            run.status != 0 && run.errors.contains(file + ":") && run.errors.contains("run `mouse3d calibrate` again"),
            "\(run.errors)")
    }

    /// A log of a device whose axes are `frame · v` (v in mouse3d's frame), at 200 Hz: `motions`
    /// are rates in mouse3d's frame (°/s) for some seconds; the force follows the attitude.
    static func turnedLog(_ path: String, frame: Matrix3, _ motions: [(seconds: Double, rate: SIMD3<Double>)]) throws {
        var text = MotionLogWriter.header + "\n"
        var attitude = Quaternion(w: 1, x: 0, y: 0, z: 0)
        var t: Int64 = 0
        for m in motions {
            for _ in 0..<Int((m.seconds * 200).rounded()) {
                let rate = m.rate * (.pi / 180)
                if length(rate) > 0 {
                    attitude =
                        (attitude * Quaternion(axis: rate / length(rate), angleRadians: length(rate) * 0.005))
                        .normalized
                }
                t += 5_000_000
                let force = attitude.conjugate.rotate(SIMD3(0, 0, 9.80665))
                text +=
                    MotionLogWriter.row(
                        MotionSample(
                            timestampNanoseconds: t, angularVelocityRadiansPerSecond: frame * rate,
                            specificForceMetersPerSecondSquared: frame * force)) + "\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test(
        "calibrate --axes on a log of a turned device: the person's three motions give its axes in words, stored; a replay then turns 90° left and 30° up; the tilt done as a turn is refused and nothing stored"
    )
    func axesSetup() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data"]
        // The device's x is mouse3d's left, its y mouse3d's down, its z backward.
        let frame = Matrix3(SIMD3(0, 1, 0), SIMD3(0, 0, -1), SIMD3(-1, 0, 0))
        let good = home + "/good.csv"
        let bad = home + "/bad.csv"
        try Self.turnedLog(
            good, frame: frame,
            [(3, .zero), (2, SIMD3(0, 0, 45)), (1.5, .zero), (1, SIMD3(0, -30, 0)), (3, .zero)])
        try Self.turnedLog(
            bad, frame: frame, [(3, .zero), (2, SIMD3(0, 0, 45)), (1.5, .zero), (2, SIMD3(0, 0, 45)), (3, .zero)])
        let axesFiles = { () -> [String] in
            ((try? FileManager.default.contentsOfDirectory(atPath: home + "/data/mouse3d/calibration")) ?? [])
                .filter { $0.hasSuffix(".axes") }
        }
        let refused = try runMouse3D(
            ["calibrate", "--axes", "--source", "replay:\(bad)"], configHome: home, environment: environment)
        #expect(refused.status != 0, "\(refused.output)")
        #expect(
            refused.errors.contains("not taken: the tilt was about nearly the same axis as the turn")
                && refused.errors.contains("nothing stored"), "\(refused.errors)")
        #expect(axesFiles().isEmpty)

        let before = try runMouse3D(
            ["run", "--source", "replay:\(good)", "--speed", "max", "--format", "jsonl"], configHome: home,
            environment: environment)
        let calibrate = try runMouse3D(
            ["calibrate", "--axes", "--source", "replay:\(good)"], configHome: home, environment: environment)
        #expect(calibrate.status == 0, "\(calibrate.errors)")
        #expect(calibrate.output.contains("forward is the device's −z, left its +x, up its −y"), "\(calibrate.output)")
        #expect(calibrate.errors.contains("1 of 3") && calibrate.errors.contains("3 of 3"), "\(calibrate.errors)")
        #expect(axesFiles().count == 1)
        let after = try runMouse3D(
            ["run", "--source", "replay:\(good)", "--speed", "max", "--format", "jsonl"], configHome: home,
            environment: environment)
        #expect(after.errors.contains("axes from `calibrate --axes`"), "\(after.errors)")
        // The last frame's angle, in degrees (jsonl carries radians).
        func last(_ key: String, _ output: String) -> Double? {
            output.split(separator: "\n").last.flatMap { line in
                line.range(of: "\"\(key)\":").flatMap {
                    Double(line[$0.upperBound...].prefix { $0 != "," && $0 != "}" })
                }
            }.map { $0 * 180 / .pi }
        }
        let yaw = try #require(last("yaw", after.output))
        let pitch = try #require(last("pitch", after.output))
        print(
            "calibrate --axes on a turned device's log: yaw \(yaw)°, pitch \(pitch)° after 90° left and 30° up (before: yaw \(last("yaw", before.output) ?? .nan)°, pitch \(last("pitch", before.output) ?? .nan)°)"
        )
        #expect(abs(yaw - 90) < 2 && abs(pitch + 30) < 2, "yaw \(yaw), pitch \(pitch)")
    }
}
