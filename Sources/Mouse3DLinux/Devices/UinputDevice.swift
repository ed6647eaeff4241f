import CEvdev
import CLinux
import Glibc

/// A virtual input device created through `/dev/uinput` with libevdev. Destroyed on deinit.
/// Owned by one thread.
public final class UinputDevice {
    /// What the device is and can send.
    public struct Description: Sendable {
        /// The name shown to applications.
        public var name: String
        /// Bus, vendor, product, version.
        public var bus: Int32 = 0x06, vendor: Int32 = 0, product: Int32 = 0, version: Int32 = 1
        /// Relative axes (`REL_*`).
        public var relativeAxes: [Int32] = []
        /// Absolute axes (`ABS_*`) with their ranges and resolutions.
        public var absoluteAxes: [(code: Int32, info: AbsoluteAxisInfo)] = []
        /// Keys and buttons (`KEY_*`, `BTN_*`).
        public var keys: [Int32] = []
        /// Miscellaneous events (`MSC_*`).
        public var miscellaneous: [Int32] = []
        /// Input properties (`INPUT_PROP_*`).
        public var properties: [Int32] = []

        /// A description with only a name.
        public init(name: String) { self.name = name }
    }

    private let uinput: OpaquePointer
    /// The event node the kernel created, for example `/dev/input/event5`.
    public let devicePath: String
    /// The sysfs path of the device.
    public let sysfsPath: String?

    /// Creates the device. The corresponding calls are `libevdev_new`, `libevdev_enable_*` and
    /// `libevdev_uinput_create_from_device` (which opens `/dev/uinput` and issues `UI_DEV_CREATE`).
    public init(_ d: Description) throws(SystemCallError) {
        guard let dev = libevdev_new() else {
            throw SystemCallError(call: "libevdev_new", subject: d.name, errno: .noMemory)
        }
        defer { libevdev_free(dev) }
        libevdev_set_name(dev, d.name)
        libevdev_set_id_bustype(dev, d.bus)
        libevdev_set_id_vendor(dev, d.vendor)
        libevdev_set_id_product(dev, d.product)
        libevdev_set_id_version(dev, d.version)
        for p in d.properties { libevdev_enable_property(dev, UInt32(p)) }
        for code in d.relativeAxes { libevdev_enable_event_code(dev, UInt32(EV_REL), UInt32(code), nil) }
        for code in d.keys { libevdev_enable_event_code(dev, UInt32(EV_KEY), UInt32(code), nil) }
        for code in d.miscellaneous { libevdev_enable_event_code(dev, UInt32(EV_MSC), UInt32(code), nil) }
        for (code, info) in d.absoluteAxes {
            var abs = input_absinfo(
                value: Int32(info.value), minimum: Int32(info.minimum), maximum: Int32(info.maximum),
                fuzz: Int32(info.fuzz), flat: Int32(info.flat), resolution: Int32(info.resolution))
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(code), &abs)
        }
        var created: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &created)
        guard rc == 0, let created else {
            throw SystemCallError(
                call: "libevdev_uinput_create_from_device", subject: "/dev/uinput (\(d.name))",
                errno: .init(rawValue: -rc))
        }
        uinput = created
        devicePath = libevdev_uinput_get_devnode(created).map { String(cString: $0) } ?? ""
        sysfsPath = libevdev_uinput_get_syspath(created).map { String(cString: $0) }
    }

    deinit { libevdev_uinput_destroy(uinput) }

    /// Whether this process may create virtual devices: opens `path` (`/dev/uinput`) for reading and
    /// writing, as libevdev does, and closes it. Throws the open's error.
    public static func checkAccess(path: String = "/dev/uinput") throws(SystemCallError) {
        let fd = try SystemCall.retrying("open", path) { open(path, O_RDWR | O_CLOEXEC) }
        close(fd)
    }

    /// Writes one event (`write(2)` of a `struct input_event`); call ``synchronize()`` to end a frame.
    public func write(type: Int32, code: Int32, value: Int32) throws(SystemCallError) {
        let rc = libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
        guard rc == 0 else { throw SystemCallError(call: "write", subject: devicePath, errno: .init(rawValue: -rc)) }
    }

    /// Ends a frame with `SYN_REPORT`.
    public func synchronize() throws(SystemCallError) {
        try write(type: Int32(EV_SYN), code: Int32(SYN_REPORT), value: 0)
    }
}
