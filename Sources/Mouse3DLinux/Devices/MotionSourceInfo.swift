import CLinux
import Glibc
import Mouse3DCore

/// A motion sensor the system offers: an evdev motion device or an IIO accelerometer/gyroscope.
public struct MotionSourceInfo: Sendable, Equatable {
    /// Where it comes from.
    public enum Kind: String, Sendable {
        /// An input device with `INPUT_PROP_ACCELEROMETER` (gamepad motion sensors, handheld IMUs).
        case evdev
        /// An Industrial I/O device with accelerometer and/or angular-velocity channels.
        case iio
    }

    /// Where it comes from.
    public var kind: Kind
    /// The device's name (evdev name, or IIO `name`).
    public var name: String
    /// `/dev/input/eventN` or `/dev/iio:deviceN`, if there is a node.
    public var node: String?
    /// The sysfs path.
    public var sysfsPath: String
    /// Whether it measures specific force.
    public var hasAccelerometer: Bool
    /// Whether it measures angular velocity.
    public var hasGyroscope: Bool
    /// For IIO: the scale of raw accelerometer values (m/s² per count), if given.
    public var accelerometerScale: Double?
    /// For IIO: the scale of raw angular-velocity values (rad/s per count), if given.
    public var gyroscopeScale: Double?
    /// The sampling frequency in Hz, if the device reports one.
    public var samplingFrequencyHertz: Double?
    /// The unique id of an evdev device (ties it to its sibling gamepad), if any.
    public var uniqueID: String?
    /// `vvvv:pppp`, the bus vendor and product ids (evdev devices), if known.
    public var deviceID: String? = nil
    /// For an IIO accelerometer: udev's `ACCEL_MOUNT_MATRIX` (from systemd's hwdb), as written.
    public var hwdbMountMatrix: String? = nil
}

extension MotionSourceInfo {
    /// The key its calibration and axes setup are kept under.
    public var calibrationKey: String {
        GyroCalibration.deviceKey(
            kind: kind.rawValue, name: name, deviceID: deviceID, uniqueID: uniqueID, sysfsPath: sysfsPath)
    }

    /// Where its axes come from, as opening it would take them: a stored setup (`calibrate
    /// --axes`), a driver's table, a mount matrix, or its own.
    public var axesOrigin: String {
        if (try? AxesSetupStore.load(device: calibrationKey)) != nil {
            return "a stored setup (calibrate --axes): \(AxesSetupStore.path(for: calibrationKey))"
        }
        switch kind {
        case .evdev:
            if let table = GamepadMotionAxes.forDevice(
                driver: node.flatMap(EvdevMotionSource.driver(of:)), id: deviceID)
            {
                return "hid-\(table.driver)'s table"
            }
            return "the device's own (no table knows its driver; mouse3d calibrate --axes sets them up)"
        case .iio:
            guard hasAccelerometer else { return "its accelerometer's" }
            if let hwdb = hwdbMountMatrix {
                return "udev's hwdb (ACCEL_MOUNT_MATRIX=\(hwdb)), then the hold when opened"
            }
            if FileSystem.exists(sysfsPath + "/in_accel_mount_matrix") || FileSystem.exists(sysfsPath + "/mount_matrix")
            {
                return "the kernel's mount matrix, then the hold when opened"
            }
            return "the driver's own, then the hold when opened"
        }
    }
}
