import CEvdev
import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// An input device node (`/dev/input/eventN`) read through libevdev. Owned by one thread.
public final class EvdevDevice {
    /// The node it was opened from.
    public let path: String
    /// The open descriptor (non-blocking), for polling.
    public let descriptor: FileDescriptor
    private let device: OpaquePointer

    /// Opens `path` read-only and non-blocking. The corresponding calls are `open(2)` and
    /// `libevdev_new_from_fd`.
    public init(path: String) throws(SystemCallError) {
        self.path = path
        descriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("open", path) { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) })
        // Event times on CLOCK_MONOTONIC, the clock every other time in mouse3d is on (evdev's own
        // default is CLOCK_REALTIME, which a wall-clock step moves; kernels since 3.4 take it). Set
        // at once, before events queue: changing a client's clock flushes its queue and queues a
        // SYN_DROPPED in its place (drivers/input/evdev.c, evdev_set_clk_type), which the reader
        // would take for events it fell behind on (every start of a 250 Hz pad said so).
        var clock = CLOCK_MONOTONIC
        _ = ioctl(descriptor.rawValue, Self.setClockID, &clock)
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(descriptor.rawValue, &dev)
        guard rc == 0, let dev else {
            try? descriptor.close()
            throw SystemCallError(call: "libevdev_new_from_fd", subject: path, errno: .init(rawValue: -rc))
        }
        device = dev
        _ = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)  // libevdev's record of it; the kernel's is set
    }

    /// EVIOCSCLOCKID, `_IOW('E', 0xa0, int)` (<linux/input.h>; a macro Swift does not import).
    static let setClockID = UInt(1 << 30 | 4 << 16 | 0x45 << 8 | 0xA0)

    deinit {
        libevdev_free(device)
        try? descriptor.close()
    }

    /// The device's name.
    public var name: String { TerminalText.escaped(String(cString: libevdev_get_name(device))) }
    /// The unique id (often a MAC address), if any.
    public var uniqueID: String? { libevdev_get_uniq(device).map { String(cString: $0) } }
    /// Bus, vendor, product and version.
    public var identity: (bus: Int, vendor: Int, product: Int, version: Int) {
        (
            Int(libevdev_get_id_bustype(device)), Int(libevdev_get_id_vendor(device)),
            Int(libevdev_get_id_product(device)), Int(libevdev_get_id_version(device))
        )
    }

    /// Takes the device for this descriptor alone (`EVIOCGRAB`, through `libevdev_grab`): other
    /// readers of the node, and the input device's other handlers (joydev's `/dev/input/jsN`), get
    /// nothing until the descriptor is closed, which the kernel does when the process dies,
    /// SIGKILL included. (hidraw is not an input handler: a grab does not hide it.)
    public func grab() throws(SystemCallError) {
        let rc = libevdev_grab(device, LIBEVDEV_GRAB)
        guard rc == 0 else {
            throw SystemCallError(call: "ioctl(EVIOCGRAB)", subject: path, errno: .init(rawValue: -rc))
        }
    }

    /// Whether the device has input property `property` (for example `INPUT_PROP_ACCELEROMETER`).
    public func hasProperty(_ property: Int32) -> Bool { libevdev_has_property(device, UInt32(property)) == 1 }

    /// Whether the device can send event `type`/`code`.
    public func hasEvent(type: Int32, code: Int32) -> Bool {
        libevdev_has_event_code(device, UInt32(type), UInt32(code)) == 1
    }

    /// The current value of event `type`/`code` (a key's 1 or 0) as libevdev tracks it: read from
    /// the kernel when the device was opened, then kept by the events read.
    public func currentValue(type: Int32, code: Int32) -> Int32 {
        libevdev_get_event_value(device, UInt32(type), UInt32(code))
    }

    /// The range, resolution and current value of absolute axis `code`, if the device has it.
    public func absoluteAxis(_ code: Int32) -> AbsoluteAxisInfo? {
        guard let info = libevdev_get_abs_info(device, UInt32(code)) else { return nil }
        let a = info.pointee
        return AbsoluteAxisInfo(
            value: Int(a.value), minimum: Int(a.minimum), maximum: Int(a.maximum), fuzz: Int(a.fuzz),
            flat: Int(a.flat), resolution: Int(a.resolution))
    }

    /// One event read from the device.
    public struct Event: Sendable, Equatable {
        /// The kernel's timestamp of the event, in nanoseconds, on CLOCK_MONOTONIC (set at open).
        public var timeNanoseconds: Int64
        /// `EV_*`.
        public var type: Int32
        /// The code within the type.
        public var code: Int32
        /// The value.
        public var value: Int32
    }

    /// What a read produced.
    public enum ReadResult: Sendable, Equatable {
        /// An event, in order.
        case event(Event)
        /// An event of the resynchronisation after the kernel dropped events (SYN_DROPPED): the
        /// state libevdev reconstructs, to be applied like normal events.
        case resynchronised(Event)
        /// Nothing more to read now.
        case wouldBlock
    }

    private var syncing = false

    /// Reads the next event. After the kernel reports SYN_DROPPED, the events of libevdev's resync
    /// follow as ``ReadResult/resynchronised(_:)`` before normal events resume.
    public func next() throws(SystemCallError) -> ReadResult {
        var ev = input_event()
        let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
        let rc = libevdev_next_event(device, flags, &ev)
        let event = Event(
            timeNanoseconds: Int64(ev.time.tv_sec) * 1_000_000_000 + Int64(ev.time.tv_usec) * 1000,
            type: Int32(ev.type), code: Int32(ev.code), value: ev.value)
        switch rc {
        case Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue):
            return syncing ? .resynchronised(event) : .event(event)
        case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue):
            syncing = true
            return .resynchronised(event)
        case -EAGAIN:
            if syncing {
                syncing = false
                return try next()
            }
            return .wouldBlock
        default:
            throw SystemCallError(call: "libevdev_next_event", subject: path, errno: .init(rawValue: -rc))
        }
    }
}
