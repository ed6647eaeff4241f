import CLinux
import Mouse3DLinux
import VMDeviceEmulators

enum UinputTests {
    /// A pointer created from Swift through libevdev's uinput, and its events read back through evdev.
    static func roundTrip() throws {
        var description = UinputDevice.Description(name: "mouse3d vmtest pointer")
        description.relativeAxes = [Int32(REL_X), Int32(REL_Y)]
        description.keys = [Int32(BTN_LEFT), Int32(BTN_RIGHT)]
        let device = try UinputDevice(description)
        try expect(device.devicePath.hasPrefix("/dev/input/event"), "device node \(device.devicePath)")
        let reader = try EvdevDevice(path: device.devicePath)
        try expect(reader.name == "mouse3d vmtest pointer", "name read back: \(reader.name)")
        try expect(reader.hasEvent(type: Int32(EV_REL), code: Int32(REL_X)), "REL_X capability")
        try expect(reader.hasEvent(type: Int32(EV_KEY), code: Int32(BTN_LEFT)), "BTN_LEFT capability")
        try expect(!reader.hasEvent(type: Int32(EV_REL), code: Int32(REL_WHEEL)), "no REL_WHEEL")

        try device.write(type: Int32(EV_REL), code: Int32(REL_X), value: 5)
        try device.write(type: Int32(EV_REL), code: Int32(REL_Y), value: -3)
        try device.synchronize()
        try device.write(type: Int32(EV_KEY), code: Int32(BTN_LEFT), value: 1)
        try device.synchronize()
        let first = try readFrame(reader).map { [$0.type, $0.code, $0.value] }
        try expect(
            first == [[Int32(EV_REL), Int32(REL_X), 5], [Int32(EV_REL), Int32(REL_Y), -3]], "first frame \(first)")
        let second = try readFrame(reader).map { [$0.type, $0.code, $0.value] }
        try expect(second == [[Int32(EV_KEY), Int32(BTN_LEFT), 1]], "second frame \(second)")
    }

    /// An accelerometer-style uinput device (INPUT_PROP_ACCELEROMETER, ABS_X..RZ) is listed by the
    /// project's own enumeration, with both sensors.
    static func motionDeviceEnumerated() throws {
        let imu = try UinputIMUEmulator(name: "mouse3d vmtest imu")
        let device = imu.device
        let udev = try Udev()
        let found = try waitFor("the uinput IMU in the enumeration", seconds: 5) {
            try MotionSourceEnumerator.evdevDevices(udev: udev).first { $0.name == "mouse3d vmtest imu" }
        }
        try expect(found.node == device.devicePath, "node \(found.node ?? "nil") vs \(device.devicePath)")
        try expect(found.hasAccelerometer && found.hasGyroscope, "sensors \(found)")
        let reader = try EvdevDevice(path: device.devicePath)
        try expect(reader.absoluteAxis(Int32(ABS_RX))?.resolution == 1024, "gyro resolution")
        // A plain pointer is not a motion source.
        var pointer = UinputDevice.Description(name: "mouse3d vmtest not imu")
        pointer.relativeAxes = [Int32(REL_X)]
        _ = try UinputDevice(pointer)
        try expect(
            try !MotionSourceEnumerator.evdevDevices(udev: udev).contains { $0.name == "mouse3d vmtest not imu" },
            "a pointer listed as a motion source")
    }
}
