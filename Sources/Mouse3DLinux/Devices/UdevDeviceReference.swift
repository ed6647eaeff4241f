import CUdev
import Glibc

/// A device borrowed from another (a parent): valid while its owner lives.
public struct UdevDeviceReference {
    let owner: UdevDevice
    let device: OpaquePointer

    /// `/sys/...`.
    public var sysfsPath: String { udevLib.udev_device_get_syspath(device).map { String(cString: $0) } ?? "" }

    /// A sysfs attribute's value, trimmed.
    public func attribute(_ name: String) -> String? {
        udevLib.udev_device_get_sysattr_value(device, name).map { String(cString: $0).trimmingBlanks }
    }
}
