import CLinux
import Glibc
import Mouse3DCore
import Mouse3DLinux
import VMDeviceEmulators

/// `mouse3d calibrate --axes` on a motion device no table knows (a uinput IMU whose axes are a
/// permuted, sign-flipped turn of mouse3d's frame), driven by the emulator's scripted motions as a
/// person would make them; then the pointer test on it.
enum AxesSetupVMTests {
    /// mouse3d's frame → the IMU's: its x is mouse3d's left, its y mouse3d's down, its z backward.
    static let turned = Matrix3(SIMD3(0, 1, 0), SIMD3(0, 0, -1), SIMD3(-1, 0, 0))
    static let data = "/tmp/axes-data"

    static func still(_ seconds: Double) -> MotionScript.Step {
        .init(seconds: seconds, degreesPerSecond: .zero, metersPerSecondSquared: TurnAndTilt.force(noseUp: 0))
    }
    static let turnLeft = MotionScript.Step(
        seconds: 2, degreesPerSecond: SIMD3(0, 0, 45), metersPerSecondSquared: TurnAndTilt.force(noseUp: 0))
    static var tiltUp: [MotionScript.Step] {
        (0..<200).map {
            .init(
                seconds: 0.005, degreesPerSecond: SIMD3(0, -30, 0),
                metersPerSecondSquared: TurnAndTilt.force(noseUp: 0.15 * (Double($0) + 0.5)))
        } + [.init(seconds: 6, degreesPerSecond: .zero, metersPerSecondSquared: TurnAndTilt.force(noseUp: 30))]
    }

    /// Runs `calibrate --axes` on the IMU, starting `script` once it has said its first step.
    static func calibrate(_ imu: UinputIMUEmulator, node: String, _ script: MotionScript, timeout: Int) throws
        -> (status: Int32, output: String, errors: String)
    {
        let child = try ChildProcess(
            executable: mouse3d,
            arguments: ["calibrate", "--axes", "--source", "evdev:\(node)", "--timeout", "\(timeout)"],
            standardOutputPath: data + ".out")
        var said: [String] = []
        let deadline = MonotonicClock.nanoseconds() + 60_000_000_000
        while MonotonicClock.nanoseconds() < deadline, let line = try child.readErrorLine() {
            said.append(line)
            if line.contains("1 of 3") { break }
        }
        imu.stream(script, axes: { turned * $0 })
        let rest = try child.readAllErrors()
        let status = try child.wait()
        imu.stop()
        let output = (try? FileContents.read(path: data + ".out")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (status, output, said.joined(separator: "\n") + "\n" + rest)
    }

    static func calibrateThenPointer() throws {
        try? FileSystem.removeDirectory(data)
        FileSystem.setEnvironment("XDG_DATA_HOME", data)
        defer { FileSystem.setEnvironment("XDG_DATA_HOME", nil) }
        let imu = try UinputIMUEmulator()
        let udev = try Udev()
        let node = try waitFor("the uinput IMU", seconds: 10) {
            try MotionSourceEnumerator.evdevDevices(udev: udev).first { $0.name == imu.name }?.node
        }
        func stored() -> [String] {
            ((try? DirectoryListing.names(in: data + "/mouse3d/calibration")) ?? []).filter { $0.hasSuffix(".axes") }
        }
        // A bad performance: the tilt done as a second turn.
        let bad = try calibrate(
            imu, node: node, MotionScript([still(4), turnLeft, still(1.5), turnLeft, still(10)]), timeout: 20)
        say(
            "VMTEST-INFO calibrate --axes, the tilt done as a turn: status \(bad.status); \(bad.errors.split(separator: "\n").filter { $0.contains("not taken") || $0.contains("nothing stored") })"
        )
        try expect(bad.status != 0, "a bad performance was taken: \(bad.output) \(bad.errors)")
        try expect(
            bad.errors.contains("not taken: the tilt was about nearly the same axis as the turn"),
            "no clear refusal: \(bad.errors)")
        try expect(bad.errors.contains("nothing stored"), "\(bad.errors)")
        try expect(stored().isEmpty, "a setup was stored: \(stored())")
        // A good one: still, a quarter turn left, the far edge up 30°.
        let good = try calibrate(
            imu, node: node, MotionScript([still(4), turnLeft, still(1.5)] + tiltUp), timeout: 30)
        say("VMTEST-INFO calibrate --axes: status \(good.status); \(good.output.trimmingCharacters)")
        try expect(good.status == 0, "calibrate --axes failed: \(good.errors)")
        try expect(
            good.output.contains("forward is the device's −z, left its +x, up its −y"),
            "the axes found: \(good.output)")
        try expect(stored().count == 1, "one setup stored: \(stored())")
        // The pointer, with the setup in use.
        let watch = TurnAndTilt()
        defer { imu.stop() }
        let (moves, errors) = try watch.measure(
            ["run", "--uinput", "pointer", "--source", "evdev:\(node)"], sent: { imu.scriptSecondsSent }
        ) {
            imu.stream(watch.script, axes: { turned * $0 }, gate: $0)
        }
        let line = errors.split(separator: "\n").first { $0.contains("calibrate --axes") }.map(String.init) ?? "(none)"
        say("VMTEST-INFO run from the turned IMU with its setup: \(moves); start-up: \(line)")
        try moves.check(turnTolerance: 10)
        try expect(line.contains("axes from `calibrate --axes`"), "the start-up line says the setup: \(errors)")
    }
}

extension String {
    /// Without blanks at either end.
    var trimmingCharacters: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\n" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\n" { s = s.dropLast() }
        return String(s)
    }
}
