import Mouse3DCore
import SystemPackage

/// Accelerometer and gyroscope from IIO: one device with both, or two devices merged by time;
/// buffered (records from /dev/iio:deviceN) or polled (`*_raw` at a set rate).
public final class IIOMotionSource: LiveMotionSource {
    /// How samples are read.
    public enum Mode: Sendable, Equatable {
        /// Records from the character device, as the device produces them.
        case buffered
        /// `*_raw` attributes read at this rate, in Hz.
        case polled(hertz: Double)
    }

    private let accelDevice: IIODevice
    private let gyroDevice: IIODevice
    private let mode: Mode
    private var buffers: [IIOBuffer] = []
    private var merger = MotionSampleMerger()
    private let accelScaling: IIODevice.Scaling
    private let gyroScaling: IIODevice.Scaling

    /// Opens the source; `mountOverride` replaces the devices' mount matrices.
    public init(accelerometer: IIODevice, gyroscope: IIODevice, mode: Mode, mountOverride: MountMatrix? = nil) throws {
        accelDevice = accelerometer
        gyroDevice = gyroscope
        self.mode = mode
        accelScaling = try accelerometer.scaling(.accel, mountOverride: mountOverride)
        gyroScaling = try gyroscope.scaling(.anglvel, mountOverride: mountOverride)
        if mode == .buffered {
            if accelerometer.sysfsPath == gyroscope.sysfsPath {
                buffers = [
                    try IIOBuffer(device: accelerometer, kinds: [.accel, .anglvel], mountOverride: mountOverride)
                ]
            } else {
                buffers = [
                    try IIOBuffer(device: accelerometer, kinds: [.accel], mountOverride: mountOverride),
                    try IIOBuffer(device: gyroscope, kinds: [.anglvel], mountOverride: mountOverride)
                ]
            }
        }
    }

    public var summary: String {
        let names =
            accelDevice.sysfsPath == gyroDevice.sysfsPath
            ? "'\(accelDevice.name)' (\(accelDevice.node))"
            : "'\(accelDevice.name)' + '\(gyroDevice.name)' (\(accelDevice.node), \(gyroDevice.node))"
        switch mode {
        case .buffered: return "iio \(names), buffered"
        case .polled(let hz): return "iio \(names), polled at \(Int(hz)) Hz"
        }
    }

    public var descriptors: [FileDescriptor] { buffers.map(\.descriptor) }

    public var pollIntervalNanoseconds: UInt64? {
        if case .polled(let hz) = mode { return UInt64(1e9 / hz) }
        return nil
    }

    public var isPresent: Bool { FileSystem.exists(accelDevice.sysfsPath) && FileSystem.exists(gyroDevice.sysfsPath) }

    public func readSamples() throws -> [MotionSample] {
        switch mode {
        case .polled:
            // Stamped when the read starts, on the poll schedule: a HID sensor's read is a round trip
            // of varying length, and stamping its end would make the fusion's steps uneven.
            let start = MonotonicClock.nanoseconds()
            let accel = try accelDevice.pollReading(.accel, scaling: accelScaling)
            let gyro = try gyroDevice.pollReading(.anglvel, scaling: gyroScaling)
            return [
                MotionSample(
                    timestampNanoseconds: Int64(start), angularVelocityRadiansPerSecond: gyro,
                    specificForceMetersPerSecondSquared: accel)
            ]
        case .buffered:
            // Accelerometer records first, so gyroscope records of the same moment find them.
            var gyroRecords: [IIOBuffer.Record] = []
            for buffer in buffers {
                for record in try buffer.readRecords() {
                    if let a = record.values[.accel] { merger.accelerometer(a) }
                    if record.values[.anglvel] != nil { gyroRecords.append(record) }
                }
            }
            return gyroRecords.sorted { $0.timestampNanoseconds < $1.timestampNanoseconds }.compactMap {
                merger.gyroscope($0.values[.anglvel]!, timestampNanoseconds: $0.timestampNanoseconds)
            }
        }
    }
}
