import Mouse3DLinux
import VMDeviceEmulators

enum SensorHubTests {
    /// The emulated sensor hub becomes IIO accel_3d and gyro_3d devices, found by the project's
    /// enumeration with the scales the drivers derive from the descriptor, and a polled raw read
    /// returns the injected value.
    static func devicesWithScales() throws {
        let hub = try SensorHubEmulator()
        defer { try? hub.unplug() }
        let udev = try Udev()
        let sources = try waitFor("IIO accel_3d and gyro_3d devices", seconds: 15) { () -> [MotionSourceInfo]? in
            let found = try MotionSourceEnumerator.iioDevices(udev: udev)
            return found.contains { $0.name == "accel_3d" } && found.contains { $0.name == "gyro_3d" } ? found : nil
        }
        let accel = sources.first { $0.name == "accel_3d" }!
        let gyro = sources.first { $0.name == "gyro_3d" }!
        try expect(accel.hasAccelerometer && !accel.hasGyroscope, "accel_3d channels \(accel)")
        try expect(gyro.hasGyroscope && !gyro.hasAccelerometer, "gyro_3d channels \(gyro)")
        let expectedAccelScale = 9.80665 / SensorHubEmulator.countsPerG
        let expectedGyroScale = Double.pi / 180 / SensorHubEmulator.countsPerDegreePerSecond
        try expect(
            abs((accel.accelerometerScale ?? 0) - expectedAccelScale) < 1e-6,
            "accelerometer scale \(accel.accelerometerScale.map { "\($0)" } ?? "nil"), expected \(expectedAccelScale)")
        try expect(
            abs((gyro.gyroscopeScale ?? 0) - expectedGyroScale) < 1e-8,
            "gyroscope scale \(gyro.gyroscopeScale.map { "\($0)" } ?? "nil"), expected \(expectedGyroScale)")
        try expect(accel.node?.hasPrefix("/dev/iio:device") == true, "accel node \(accel.node ?? "nil")")

        // A polled read goes to the device as a GET_REPORT; the emulator answers with this reading.
        hub.setReading(metersPerSecondSquared: SIMD3(1.5, -2.25, 9.80665), degreesPerSecond: SIMD3(30, -12.5, 0))
        let raw = try FileContents.read(path: accel.sysfsPath + "/in_accel_x_raw")
        let text = String(decoding: raw, as: UTF8.self).filter { !$0.isWhitespace }
        try expect(
            text == "\(Int((1.5 / 9.80665 * SensorHubEmulator.countsPerG).rounded()))", "in_accel_x_raw = \(text)")
    }
}
