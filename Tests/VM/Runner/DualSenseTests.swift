import CLinux
import Mouse3DLinux
import VMDeviceEmulators

enum DualSenseTests {
    static let motionName = DualSenseEmulator.name + " Motion Sensors"

    /// The emulated DualSense is bound by hid-playstation; its Motion Sensors device is found by the
    /// project's enumeration and reports the injected motion through the driver's calibration.
    static func motionSensors() throws {
        let controller = try DualSenseEmulator()
        defer { try? controller.unplug() }
        let udev = try Udev()
        let source = try waitFor("'\(motionName)' in the enumeration", seconds: 15) {
            try MotionSourceEnumerator.evdevDevices(udev: udev).first { $0.name == motionName }
        }
        try expect(source.hasAccelerometer && source.hasGyroscope, "sensors \(source)")
        try expect(source.uniqueID == "11:22:33:44:55:66", "uniq \(source.uniqueID ?? "nil")")
        let node = try source.node ?? { throw VMTestFailure(description: "no node") }()
        let device = try EvdevDevice(path: node)
        try expect(device.hasProperty(Int32(INPUT_PROP_ACCELEROMETER)), "INPUT_PROP_ACCELEROMETER")
        try expect(device.hasEvent(type: Int32(EV_MSC), code: Int32(MSC_TIMESTAMP)), "MSC_TIMESTAMP")
        for code in [ABS_X, ABS_Y, ABS_Z] {
            try expect(device.absoluteAxis(Int32(code))?.resolution == 8192, "accelerometer resolution of axis \(code)")
        }
        for code in [ABS_RX, ABS_RY, ABS_RZ] {
            try expect(device.absoluteAxis(Int32(code))?.resolution == 1024, "gyroscope resolution of axis \(code)")
        }
        // Drain whatever the driver emitted at start-up, then inject known motion twice.
        while case .event = try device.next() {}
        let rates = SIMD3<Double>(90, -45, 10)  // °/s
        let forces = SIMD3<Double>(0, 4.903325, 8.49285)  // m/s²: tilted 30° about x
        // The first report can go missing while the driver finishes setting up (seen once in CI under a
        // slow TCG guest): send until one comes through, then measure the next.
        var warmed = false
        for _ in 0..<5 where !warmed {
            try controller.sendMotion(degreesPerSecond: rates, metersPerSecondSquared: forces, microseconds: 4000)
            warmed = (try? readFrame(device, seconds: 1)) != nil
        }
        try expect(warmed, "no event frame from \(device.path) after 5 reports a second apart")
        try controller.sendMotion(degreesPerSecond: rates, metersPerSecondSquared: forces, microseconds: 4000)
        let frame = try readFrame(device)
        func value(_ code: Int32) -> Int32? {
            frame.last { $0.type == Int32(EV_ABS) && $0.code == code }?.value
                ?? device.absoluteAxis(code).map { Int32($0.value) }
        }
        for (i, code) in [ABS_RX, ABS_RY, ABS_RZ].enumerated() {
            let got = Double(value(Int32(code)) ?? 0) / 1024
            try expect(abs(got - rates[i]) <= 1.0 / 16, "gyro axis \(i): \(got) °/s, injected \(rates[i])")
        }
        for (i, code) in [ABS_X, ABS_Y, ABS_Z].enumerated() {
            let got = Double(value(Int32(code)) ?? 0) / 8192 * 9.80665
            try expect(abs(got - forces[i]) <= 0.01, "accelerometer axis \(i): \(got) m/s², injected \(forces[i])")
        }
        let stamps = frame.filter { $0.type == Int32(EV_MSC) && $0.code == Int32(MSC_TIMESTAMP) }
        try expect(stamps.count == 1, "one MSC_TIMESTAMP per report, got \(stamps.count)")
    }

    /// With udevd running, the DualSense's motion device carries ID_INPUT_ACCELEROMETER=1.
    static func udevProperties() throws {
        guard FileSystem.exists("/run/udev/control") else {
            throw VMTestFailure(description: "udevd is not running in this VM (/run/udev/control missing)")
        }
        let controller = try DualSenseEmulator()
        defer { try? controller.unplug() }
        let udev = try Udev()
        let properties = try waitFor("udev properties of '\(motionName)'", seconds: 15) { () -> (String?, String?)? in
            for device in try udev.devices(subsystem: "input") where device.sysname.hasPrefix("event") {
                guard device.parent?.attribute("name") == motionName else { continue }
                let accel = device.property("ID_INPUT_ACCELEROMETER")
                if accel != nil { return (accel, device.property("ID_INPUT_JOYSTICK")) }
            }
            return nil
        }
        try expect(properties.0 == "1", "ID_INPUT_ACCELEROMETER=\(properties.0 ?? "unset")")
        try expect(properties.1 == nil, "the motion device is not a joystick, ID_INPUT_JOYSTICK=\(properties.1 ?? "")")
    }
}
