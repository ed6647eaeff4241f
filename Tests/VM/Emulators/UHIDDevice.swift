import CLinux
import Glibc
@_spi(DeviceEmulators) import Mouse3DLinux
import SystemPackage

/// A HID device emulated in user space through `/dev/uhid`: the kernel's real HID drivers bind to
/// it as to hardware. Used by the device tests. Destroyed on deinit.
///
/// `struct uhid_event` is packed: a 32-bit type, then the union at byte 4. Offsets below follow
/// `<linux/uhid.h>`.
///
/// Sendable: it holds no mutable state; every call builds its own event buffer and the kernel takes
/// each `write(2)` of a whole event atomically, so one thread may answer requests while another
/// sends input reports.
public final class UHIDDevice: @unchecked Sendable {
    /// The descriptor of `/dev/uhid`, for polling.
    public let descriptor: FileDescriptor
    static let eventSize = MemoryLayout<uhid_event>.size

    /// What identifies the emulated device.
    public struct Identity: Sendable {
        /// The HID device name.
        public var name: String
        /// Physical path and unique id strings.
        public var phys: String, uniq: String
        /// `BUS_USB`, `BUS_BLUETOOTH`, ...
        public var bus: UInt16
        /// USB ids.
        public var vendor: UInt32, product: UInt32, version: UInt32

        /// Creates an identity.
        public init(
            name: String, phys: String = "mouse3d-test/uhid", uniq: String = "", bus: UInt16, vendor: UInt32,
            product: UInt32, version: UInt32 = 0x0100
        ) {
            self.name = name
            self.phys = phys
            self.uniq = uniq
            self.bus = bus
            self.vendor = vendor
            self.product = product
            self.version = version
        }
    }

    /// Something the kernel asked of the device.
    public enum Request: Sendable {
        /// The driver started, stopped, opened or closed the device.
        case lifecycle(UInt32)
        /// The driver wants report `number` of `type` (`UHID_FEATURE_REPORT`, ...); answer with
        /// ``replyToGetReport(id:data:)`` or ``failGetReport(id:errno:)``.
        case getReport(id: UInt32, number: UInt8, type: UInt8)
        /// The driver sets report `number`; answer with ``replyToSetReport(id:)``.
        case setReport(id: UInt32, number: UInt8, type: UInt8, data: [UInt8])
        /// The driver sent an output report.
        case output(data: [UInt8])
    }

    /// Opens `/dev/uhid` and creates the device with `reportDescriptor` (`UHID_CREATE2`).
    public init(identity: Identity, reportDescriptor: [UInt8]) throws(SystemCallError) {
        descriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("open", "/dev/uhid") {
                open("/dev/uhid", O_RDWR | O_CLOEXEC | O_NONBLOCK)
            })
        var event = Self.event(type: UInt32(UHID_CREATE2.rawValue))
        Self.put(string: identity.name, at: 4, capacity: 128, in: &event)
        Self.put(string: identity.phys, at: 132, capacity: 64, in: &event)
        Self.put(string: identity.uniq, at: 196, capacity: 64, in: &event)
        Self.put(UInt16(reportDescriptor.count), at: 260, in: &event)
        Self.put(identity.bus, at: 262, in: &event)
        Self.put(identity.vendor, at: 264, in: &event)
        Self.put(identity.product, at: 268, in: &event)
        Self.put(identity.version, at: 272, in: &event)
        event.replaceSubrange(280..<280 + reportDescriptor.count, with: reportDescriptor)
        // On failure deinit closes the descriptor: every stored property is set, so a throw from
        // here releases a whole object (closing it here too closed it twice, perhaps someone else's).
        try send(event)
    }

    deinit {
        try? send(Self.event(type: UInt32(UHID_DESTROY.rawValue)))
        try? descriptor.close()
    }

    /// Destroys the device now (`UHID_DESTROY`), as unplugging it would; the descriptor stays open.
    public func destroy() throws(SystemCallError) {
        try send(Self.event(type: UInt32(UHID_DESTROY.rawValue)))
    }

    /// Sends an input report (`UHID_INPUT2`); `data` starts with the report id if the device uses ids.
    public func input(_ data: [UInt8]) throws(SystemCallError) {
        var event = Self.event(type: UInt32(UHID_INPUT2.rawValue))
        Self.put(UInt16(data.count), at: 4, in: &event)
        event.replaceSubrange(6..<6 + data.count, with: data)
        try send(event)
    }

    /// Answers a get-report request with `data` (`UHID_GET_REPORT_REPLY`).
    public func replyToGetReport(id: UInt32, data: [UInt8]) throws(SystemCallError) {
        var event = Self.event(type: UInt32(UHID_GET_REPORT_REPLY.rawValue))
        Self.put(id, at: 4, in: &event)
        Self.put(UInt16(data.count), at: 10, in: &event)
        event.replaceSubrange(12..<12 + data.count, with: data)
        try send(event)
    }

    /// Refuses a get-report request with `errno`.
    public func failGetReport(id: UInt32, errno: Int32 = EIO) throws(SystemCallError) {
        var event = Self.event(type: UInt32(UHID_GET_REPORT_REPLY.rawValue))
        Self.put(id, at: 4, in: &event)
        Self.put(UInt16(errno), at: 8, in: &event)
        try send(event)
    }

    /// Acknowledges a set-report request (`UHID_SET_REPORT_REPLY`).
    public func replyToSetReport(id: UInt32) throws(SystemCallError) {
        var event = Self.event(type: UInt32(UHID_SET_REPORT_REPLY.rawValue))
        Self.put(id, at: 4, in: &event)
        try send(event)
    }

    /// The next request from the kernel, or `nil` if none is waiting. `read(2)`.
    public func nextRequest() throws(SystemCallError) -> Request? {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        let size = event.count
        guard
            let n = try SystemCall.retrying(
                "read", "/dev/uhid", tolerating: [EAGAIN], { read(descriptor.rawValue, &event, size) }),
            n >= 4
        else { return nil }
        func get<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
            event.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        }
        let type = get(UInt32.self, at: 0)
        switch type {
        case UInt32(UHID_GET_REPORT.rawValue):
            return .getReport(id: get(UInt32.self, at: 4), number: event[8], type: event[9])
        case UInt32(UHID_SET_REPORT.rawValue):
            let length = Int(get(UInt16.self, at: 10))
            return .setReport(
                id: get(UInt32.self, at: 4), number: event[8], type: event[9],
                data: Array(event[12..<12 + min(length, 4096)]))
        case UInt32(UHID_OUTPUT.rawValue):
            let length = Int(get(UInt16.self, at: 4 + 4096))
            return .output(data: Array(event[4..<4 + min(length, 4096)]))
        default:
            return .lifecycle(type)
        }
    }

    private static func event(type: UInt32) -> [UInt8] {
        var event = [UInt8](repeating: 0, count: eventSize)
        put(type, at: 0, in: &event)
        return event
    }

    private static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in event: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { event.replaceSubrange(offset..<offset + $0.count, with: $0) }
    }

    private static func put(string: String, at offset: Int, capacity: Int, in event: inout [UInt8]) {
        let bytes = Array(string.utf8.prefix(capacity - 1))
        event.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }

    private func send(_ event: [UInt8]) throws(SystemCallError) {
        let size = event.count
        let written = try SystemCall.retrying("write", "/dev/uhid") { write(descriptor.rawValue, event, size) }
        guard written == size else { throw SystemCallError(call: "write", subject: "/dev/uhid", errno: .ioError) }
    }
}
