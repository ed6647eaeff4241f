import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// Buffered reading of an IIO device: enables the x, y, z channels of the wanted kinds and the
/// timestamp, sets a trigger where the device needs one, enables the buffer (last), and decodes the
/// records read from `/dev/iio:deviceN`. Disables the buffer on deinit. Owned by one thread.
public final class IIOBuffer {
    /// One decoded record.
    public struct Record: Sendable {
        /// The `in_timestamp` channel (CLOCK_MONOTONIC, ns) if enabled, else the read time.
        public var timestampNanoseconds: Int64
        /// Values by kind, in physical units, turned by the matrices given.
        public var values: [IIODevice.ChannelKind: SIMD3<Double>]
    }

    /// The device.
    public let device: IIODevice
    /// The record layout in use.
    public let layout: IIOScanLayout
    /// The open character device, for polling.
    public let descriptor: FileDescriptor
    private var scalings: [IIODevice.ChannelKind: IIODevice.Scaling]
    private var buffer: [UInt8]
    private var carry: [UInt8] = []

    /// Turns `kind`'s values by `matrix` from now on (from the chip's axes), if it is read.
    public func setMatrix(_ matrix: Matrix3, for kind: IIODevice.ChannelKind) {
        scalings[kind]?.matrix = matrix
    }

    /// Sets the device up for buffered reading of `kinds`.
    /// `matrices` turn each kind from the chip's axes (none: kept in them).
    public init(
        device: IIODevice, kinds: [IIODevice.ChannelKind], matrices: [IIODevice.ChannelKind: Matrix3] = [:],
        length: Int = 128
    ) throws {
        self.device = device
        try? device.setAttribute("buffer/enable", "0")
        // Timestamps on our clock, where the device lets us choose.
        if device.attribute("current_timestamp_clock") != nil {
            try? device.setAttribute("current_timestamp_clock", "monotonic")
        }
        var enabled: [(name: String, index: Int, type: IIOScanType)] = []
        let scan = device.sysfsPath + "/scan_elements"
        guard FileSystem.exists(scan) else {
            throw MotionSourceError(
                message:
                    "\(device.sysfsPath): no scan_elements, so the device cannot buffer; read it by polling: --iio-poll 100"
            )
        }
        // Turn off what we do not want, on what we want, then read back the layout of everything on.
        for name in try DirectoryListing.names(in: scan) where name.hasSuffix("_en") {
            let channel = String(name.dropFirst(3).dropLast(3))  // in_accel_x_en -> accel_x
            let wanted =
                channel == "timestamp"
                || kinds.contains {
                    channel.hasPrefix($0.rawValue + "_")
                        && ["x", "y", "z"].contains(channel.split(separator: "_").last.map(String.init) ?? "")
                }
            try IIODevice.write("\(scan)/\(name)", wanted ? "1" : "0")
        }
        for name in try DirectoryListing.names(in: scan) where name.hasSuffix("_en") {
            guard (try? IIODevice.read("\(scan)/\(name)")) == "1" else { continue }
            let channel = String(name.dropFirst(3).dropLast(3))
            let stem = String(name.dropLast(3))
            guard let index = Int(try IIODevice.read("\(scan)/\(stem)_index")),
                let type = IIOScanType(try IIODevice.read("\(scan)/\(stem)_type"))
            else {
                throw MotionSourceError(message: "\(scan)/\(stem): unreadable index or type")
            }
            enabled.append((channel, index, type))
        }
        layout = IIOScanLayout(enabled)
        var scalings: [IIODevice.ChannelKind: IIODevice.Scaling] = [:]
        for kind in kinds {
            var scaling = try device.scaling(kind)
            scaling.matrix = matrices[kind] ?? .diagonal(1)
            scalings[kind] = scaling
        }
        self.scalings = scalings
        // A trigger, where the device has a trigger slot and none is set: its own, named <name>-dev<N>.
        if let current = device.attribute("trigger/current_trigger"), current.isEmpty {
            let own = "\(device.name)-dev\(device.sysname.dropFirst("iio:device".count))"
            let triggers =
                (try? DirectoryListing.names(in: "/sys/bus/iio/devices"))?.filter { $0.hasPrefix("trigger") } ?? []
            let names = triggers.compactMap { try? IIODevice.read("/sys/bus/iio/devices/\($0)/name") }
            guard let trigger = names.first(where: { $0 == own }) ?? names.first(where: { $0.hasPrefix(device.name) })
            else {
                throw MotionSourceError(
                    message: "\(device.sysfsPath): needs a trigger and none fits (triggers here: "
                        + "\(names.isEmpty ? "none" : names.joined(separator: ", "))); read it by polling instead: --iio-poll 100"
                )
            }
            try device.setAttribute("trigger/current_trigger", trigger)
        }
        if device.attribute("buffer/length") != nil { try? device.setAttribute("buffer/length", "\(length)") }
        let node = device.node
        do {
            descriptor = FileDescriptor(
                rawValue: try SystemCall.retrying("open", node) { open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC) })
        } catch {
            throw MotionSourceError(message: PermissionAdvice.message(for: error, node: node))
        }
        buffer = [UInt8](repeating: 0, count: max(layout.recordBytes * 64, 64))
        do {
            try device.setAttribute("buffer/enable", "1")  // last: the layout is fixed from here on
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    deinit {
        try? device.setAttribute("buffer/enable", "0")
        try? descriptor.close()
    }

    /// Reads whatever records are waiting.
    public func readRecords() throws -> [Record] {
        let size = buffer.count
        guard
            let n = try SystemCall.retrying(
                "read", device.node, tolerating: [EAGAIN], { read(descriptor.rawValue, &buffer, size) }), n > 0
        else {
            return []
        }
        let now = Int64(MonotonicClock.nanoseconds())
        carry.append(contentsOf: buffer[0..<n])
        var records: [Record] = []
        let recordBytes = layout.recordBytes
        var start = 0
        carry.withUnsafeBytes { raw in
            while start + recordBytes <= raw.count {
                let record = UnsafeRawBufferPointer(rebasing: raw[start..<start + recordBytes])
                var values: [IIODevice.ChannelKind: SIMD3<Double>] = [:]
                for (kind, scaling) in scalings {
                    var v = SIMD3<Double>.zero
                    for (i, axis) in ["x", "y", "z"].enumerated() {
                        if let c = layout.channel("\(kind.rawValue)_\(axis)") {
                            v[i] = Double(c.type.decode(record, at: c.offset))
                        }
                    }
                    values[kind] = scaling.apply(v)
                }
                let stamp = layout.channel("timestamp").map { $0.type.decode(record, at: $0.offset) } ?? now
                records.append(Record(timestampNanoseconds: stamp, values: values))
                start += recordBytes
            }
        }
        carry.removeFirst(start)
        return records
    }
}
