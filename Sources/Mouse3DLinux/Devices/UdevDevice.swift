import CUdev
import Glibc

/// One device as libudev sees it: sysfs path, node, attributes and udev properties.
public final class UdevDevice {
    let device: OpaquePointer

    init(_ device: OpaquePointer) { self.device = device }
    deinit { _ = udevLib.udev_device_unref(device) }

    /// `/sys/...`.
    public var sysfsPath: String { udevLib.udev_device_get_syspath(device).map { String(cString: $0) } ?? "" }
    /// The kernel name, for example `event5` or `iio:device0`.
    public var sysname: String { udevLib.udev_device_get_sysname(device).map { String(cString: $0) } ?? "" }
    /// The device node, for example `/dev/input/event5`, if it has one.
    public var node: String? { udevLib.udev_device_get_devnode(device).map { String(cString: $0) } }

    /// A sysfs attribute's value, trimmed.
    public func attribute(_ name: String) -> String? {
        udevLib.udev_device_get_sysattr_value(device, name).map { String(cString: $0).trimmingBlanks }
    }

    /// A udev property (set by udevd's rules, for example `ID_INPUT_ACCELEROMETER`), if udevd has
    /// processed the device.
    public func property(_ name: String) -> String? {
        udevLib.udev_device_get_property_value(device, name).map { String(cString: $0) }
    }

    /// The parent device (`udev_device_get_parent`), kept alive by this one.
    public var parent: UdevDeviceReference? {
        udevLib.udev_device_get_parent(device).map { UdevDeviceReference(owner: self, device: $0) }
    }
}
