import CUdev
import Glibc
import SystemPackage

/// Device add/remove events from udev (`udev_monitor`), for following hotplug. Owned by one thread.
public final class UdevMonitor {
    private let monitor: OpaquePointer
    private let udev: Udev

    /// One event.
    public struct Event: Sendable {
        /// `add`, `remove`, `change`, `bind`, ...
        public var action: String
        /// The device's sysfs path.
        public var sysfsPath: String
        /// Its node, if it has one.
        public var node: String?
        /// Its subsystem.
        public var subsystem: String
    }

    /// Listens for events of `subsystems`. Events come from udevd (after its rules ran) when it is
    /// running, else straight from the kernel. The corresponding calls are
    /// `udev_monitor_new_from_netlink`, `udev_monitor_filter_add_match_subsystem_devtype` and
    /// `udev_monitor_enable_receiving`.
    public init(subsystems: [String]) throws(SystemCallError) {
        udev = try Udev()
        let source = FileSystem.exists("/run/udev/control") ? "udev" : "kernel"
        guard let monitor = udevLib.udev_monitor_new_from_netlink(udev.context, source) else {
            throw SystemCallError(call: "udev_monitor_new_from_netlink", subject: source, errno: .init(rawValue: errno))
        }
        self.monitor = monitor
        for s in subsystems { _ = udevLib.udev_monitor_filter_add_match_subsystem_devtype(monitor, s, nil) }
        let rc = udevLib.udev_monitor_enable_receiving(monitor)
        guard rc >= 0 else {
            _ = udevLib.udev_monitor_unref(monitor)
            throw SystemCallError(call: "udev_monitor_enable_receiving", subject: source, errno: .init(rawValue: -rc))
        }
    }

    deinit { _ = udevLib.udev_monitor_unref(monitor) }

    /// The descriptor to wait on (owned by libudev's monitor, closed with it).
    public var descriptor: FileDescriptor { FileDescriptor(rawValue: udevLib.udev_monitor_get_fd(monitor)) }

    /// Every event waiting (none if nothing is).
    public func pendingEvents() -> [Event] {
        var events: [Event] = []
        while let device = udevLib.udev_monitor_receive_device(monitor) {
            defer { _ = udevLib.udev_device_unref(device) }
            func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
            events.append(
                Event(
                    action: text(udevLib.udev_device_get_action(device)) ?? "",
                    sysfsPath: text(udevLib.udev_device_get_syspath(device)) ?? "",
                    node: text(udevLib.udev_device_get_devnode(device)),
                    subsystem: text(udevLib.udev_device_get_subsystem(device)) ?? ""))
        }
        return events
    }
}
