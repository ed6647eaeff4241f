import CUdev
import Glibc

/// A libudev context. Owned by one thread.
public final class Udev {
    let context: OpaquePointer

    /// A new context. The corresponding call is `udev_new()`.
    public init() throws(SystemCallError) {
        guard m3d_udev() != nil else {
            throw SystemCallError(
                call: "dlopen", subject: "libudev (\(String(cString: m3d_udev_error())))", errno: .noSuchFileOrDirectory
            )
        }
        guard let context = udevLib.udev_new() else {
            throw SystemCallError(call: "udev_new", subject: "libudev", errno: .noMemory)
        }
        self.context = context
    }

    deinit { _ = udevLib.udev_unref(context) }

    /// Every device of `subsystem` known to sysfs, in libudev's order.
    /// The corresponding calls are `udev_enumerate_add_match_subsystem` and `udev_enumerate_scan_devices`.
    public func devices(subsystem: String) throws(SystemCallError) -> [UdevDevice] {
        guard let enumerate = udevLib.udev_enumerate_new(context) else {
            throw SystemCallError(call: "udev_enumerate_new", subject: subsystem, errno: .noMemory)
        }
        defer { _ = udevLib.udev_enumerate_unref(enumerate) }
        _ = udevLib.udev_enumerate_add_match_subsystem(enumerate, subsystem)
        let rc = udevLib.udev_enumerate_scan_devices(enumerate)
        guard rc >= 0 else {
            throw SystemCallError(call: "udev_enumerate_scan_devices", subject: subsystem, errno: .init(rawValue: -rc))
        }
        var devices: [UdevDevice] = []
        var entry = udevLib.udev_enumerate_get_list_entry(enumerate)
        while let e = entry {
            if let path = udevLib.udev_list_entry_get_name(e),
                let device = udevLib.udev_device_new_from_syspath(context, path)
            {
                devices.append(UdevDevice(device))
            }
            entry = udevLib.udev_list_entry_get_next(e)
        }
        return devices
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmingBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

/// libudev's functions. Every use follows a ``Udev``'s init, which refuses to go on when the library
/// could not be opened, so the table is there (CUdev's shim.h says why it is opened, not linked).
var udevLib: m3d_udev { m3d_udev()!.pointee }
