import CLinux
import Glibc
import Mouse3DCore

/// Finds motion sources through libudev and sysfs. Works without udevd (from sysfs attributes);
/// with udevd it also sees udev's properties.
public enum MotionSourceEnumerator {
    /// Every evdev device whose input properties include `INPUT_PROP_ACCELEROMETER`.
    public static func evdevDevices(udev: Udev) throws(SystemCallError) -> [MotionSourceInfo] {
        try udev.devices(subsystem: "input").compactMap { device -> MotionSourceInfo? in
            guard device.sysname.hasPrefix("event"), let input = device.parent else { return nil }
            let byProperty = device.property("ID_INPUT_ACCELEROMETER") == "1"
            let bySysfs =
                input.attribute("properties").map { hasBit(Int(INPUT_PROP_ACCELEROMETER), inHexBitmask: $0) } ?? false
            guard byProperty || bySysfs else { return nil }
            let abs = input.attribute("capabilities/abs") ?? "0"
            let hasAccel = [ABS_X, ABS_Y, ABS_Z].allSatisfy { hasBit(Int($0), inHexBitmask: abs) }
            let hasGyro = [ABS_RX, ABS_RY, ABS_RZ].allSatisfy { hasBit(Int($0), inHexBitmask: abs) }
            return MotionSourceInfo(
                kind: .evdev, name: TerminalText.escaped(input.attribute("name") ?? device.sysname), node: device.node,
                sysfsPath: device.sysfsPath, hasAccelerometer: hasAccel, hasGyroscope: hasGyro,
                accelerometerScale: nil, gyroscopeScale: nil, samplingFrequencyHertz: nil,
                uniqueID: input.attribute("uniq").flatMap { $0.isEmpty ? nil : $0 },
                deviceID: Self.deviceID(vendor: input.attribute("id/vendor"), product: input.attribute("id/product")))
        }
    }

    /// `vvvv:pppp` from numeric ids (their low 16 bits), or nil for 0000:0000.
    static func deviceID(vendor: Int, product: Int) -> String? {
        func hex4(_ v: Int) -> String {
            let digits = String(v & 0xffff, radix: 16)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        return deviceID(vendor: hex4(vendor), product: hex4(product))
    }

    /// `vvvv:pppp` from sysfs id attributes (hex), or nil.
    static func deviceID(vendor: String?, product: String?) -> String? {
        guard let vendor, let product, vendor.count == 4, product.count == 4, vendor != "0000" || product != "0000"
        else { return nil }
        return "\(vendor.lowercased()):\(product.lowercased())"
    }

    /// Every IIO device with accelerometer (`in_accel_*`) or angular-velocity (`in_anglvel_*`) channels.
    public static func iioDevices(udev: Udev) throws(SystemCallError) -> [MotionSourceInfo] {
        try udev.devices(subsystem: "iio").compactMap { device -> MotionSourceInfo? in
            guard device.sysname.hasPrefix("iio:device") else { return nil }
            // Existence only: reading a *_raw attribute is a measurement (a device round trip).
            func has(_ kind: String) -> Bool {
                ["in_\(kind)_x_raw", "scan_elements/in_\(kind)_x_en"].contains {
                    FileSystem.exists(device.sysfsPath + "/" + $0)
                }
            }
            let hasAccel = has("accel")
            let hasGyro = has("anglvel")
            guard hasAccel || hasGyro else { return nil }
            func number(_ names: [String]) -> Double? {
                for n in names { if let v = device.attribute(n).flatMap(Double.init) { return v } }
                return nil
            }
            return MotionSourceInfo(
                kind: .iio, name: TerminalText.escaped(device.attribute("name") ?? device.sysname),
                node: device.node ?? "/dev/\(device.sysname)",
                sysfsPath: device.sysfsPath, hasAccelerometer: hasAccel, hasGyroscope: hasGyro,
                accelerometerScale: hasAccel ? number(["in_accel_scale", "in_accel_x_scale"]) : nil,
                gyroscopeScale: hasGyro ? number(["in_anglvel_scale", "in_anglvel_x_scale"]) : nil,
                samplingFrequencyHertz: number([
                    "sampling_frequency", "in_accel_sampling_frequency", "in_anglvel_sampling_frequency"
                ]),
                uniqueID: nil, hwdbMountMatrix: hasAccel ? device.property("ACCEL_MOUNT_MATRIX") : nil)
        }
    }

    /// Whether bit `bit` is set in a sysfs bitmask such as `"3 0 0"` (hex words, most significant
    /// first, each `long` wide).
    public static func hasBit(_ bit: Int, inHexBitmask text: String) -> Bool {
        let words = text.split(separator: " ").reversed().map { UInt64($0, radix: 16) ?? 0 }
        let wordBits = MemoryLayout<Int>.size * 8
        let index = bit / wordBits
        guard index < words.count else { return false }
        return words[index] & (1 << UInt64(bit % wordBits)) != 0
    }
}

extension FileSystem {
    /// Whether something exists at `path`. `access(2)`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
