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
    /// The gyroscope's samples on its own grid (``RegularSampleClock``): the kernel stamps a HID
    /// sensor hub's samples as they arrive.
    private var gyroClock = RegularSampleClock()
    private var accelScaling: IIODevice.Scaling
    private var gyroScaling: IIODevice.Scaling
    /// How the chip's axes became mouse3d's frame.
    public let frame: SensorFrame
    /// The turn from the chip's axes to mouse3d's frame (the gyroscope's; the accelerometer's is it
    /// times the sign), for calibration files (which keep the chip's axes) and `calibrate --axes`.
    public private(set) var axes: GamepadMotionAxes
    /// A stored setup in use instead of ``frame``.
    public private(set) var setup: AxesSetup?
    public var frameAxes: GamepadMotionAxes? { axes }

    /// Opens the source. Its frame (``SensorFrame``) comes from `mountOverride` (the configuration),
    /// else `hwdbMountMatrix` (udev's `ACCEL_MOUNT_MATRIX`), else the kernel's matrix, and from one
    /// reading of the accelerometer now.
    public init(
        accelerometer: IIODevice, gyroscope: IIODevice, mode: Mode, mountOverride: MountMatrix? = nil,
        hwdbMountMatrix: MountMatrix? = nil
    ) throws {
        accelDevice = accelerometer
        gyroDevice = gyroscope
        self.mode = mode
        var accelScaling = try accelerometer.scaling(.accel)
        var gyroScaling = try gyroscope.scaling(.anglvel)
        let (mount, origin) = SensorFrame.mount(
            configured: mountOverride, hwdb: hwdbMountMatrix, kernel: accelerometer.kernelMountMatrix(.accel))
        let driverConvention = SensorFrame.Convention.ofDriver(named: accelerometer.name)
        var frame: SensorFrame
        if let reading = try? accelerometer.pollReading(.accel, scaling: accelScaling),
            (reading * reading).sum() > 1
        {
            frame = SensorFrame.decide(
                reading: reading, mount: mount, origin: origin, driverConvention: driverConvention)
        } else {
            // No reading (a device that only buffers, or a read that failed): lying flat, the
            // driver's convention.
            let rotation = SensorFrame.decide(
                reading: SIMD3(0, 0, 1), mount: mount, origin: origin, driverConvention: driverConvention
            ).rotation
            frame = SensorFrame.decide(
                reading: rotation.transposed * SIMD3(0, 0, driverConvention.sign), mount: mount, origin: origin,
                driverConvention: driverConvention)
            frame.conventionReason = "the driver's (no reading at start)"
        }
        self.frame = frame
        var gyroMatrix = frame.gyroscope
        // A gyroscope on its own chip with its own kernel matrix keeps it (the hold is the device's).
        if gyroscope.sysfsPath != accelerometer.sysfsPath, origin == .kernel || origin == .none,
            let own = gyroscope.kernelMountMatrix(.anglvel)
        {
            gyroMatrix = frame.holdMatrix * (own.matrix.determinant < 0 ? own.matrix * -1 : own.matrix)
        }
        accelScaling.matrix = frame.accelerometer
        gyroScaling.matrix = gyroMatrix
        self.accelScaling = accelScaling
        self.gyroScaling = gyroScaling
        axes = GamepadMotionAxes(
            driver: "iio", models: accelerometer.name, mount: MountMatrix(matrix: gyroMatrix),
            reason: frame.description, accelerometerSign: frame.convention.sign)
        if mode == .buffered {
            if accelerometer.sysfsPath == gyroscope.sysfsPath {
                buffers = [
                    try IIOBuffer(
                        device: accelerometer, kinds: [.accel, .anglvel],
                        matrices: [.accel: accelScaling.matrix, .anglvel: gyroMatrix])
                ]
            } else {
                buffers = [
                    try IIOBuffer(device: accelerometer, kinds: [.accel], matrices: [.accel: accelScaling.matrix]),
                    try IIOBuffer(device: gyroscope, kinds: [.anglvel], matrices: [.anglvel: gyroMatrix])
                ]
            }
        }
    }

    /// Turns the chip's axes by a stored setup (`calibrate --axes`) instead of ``frame``.
    public func use(_ setup: AxesSetup) {
        self.setup = setup
        accelScaling.matrix = setup.rotation * setup.accelerometerSign
        gyroScaling.matrix = setup.rotation
        for buffer in buffers {
            buffer.setMatrix(accelScaling.matrix, for: .accel)
            buffer.setMatrix(gyroScaling.matrix, for: .anglvel)
        }
        axes = GamepadMotionAxes(setup)
        axes.driver = "iio"
    }

    public var summary: String {
        let names =
            accelDevice.sysfsPath == gyroDevice.sysfsPath
            ? "'\(accelDevice.name)' (\(accelDevice.node))"
            : "'\(accelDevice.name)' + '\(gyroDevice.name)' (\(accelDevice.node), \(gyroDevice.node))"
        switch mode {
        case .buffered: return "iio \(names), buffered; \(setup?.summary ?? frame.description)"
        case .polled(let hz): return "iio \(names), polled at \(Int(hz)) Hz; \(setup?.summary ?? frame.description)"
        }
    }

    public var descriptors: [FileDescriptor] { buffers.map(\.descriptor) }

    /// What became of the gyroscope's stamps (buffered reads; a polled read is stamped on its schedule).
    public var closingSummary: [String] {
        guard case .buffered = mode else { return [] }
        guard let period = gyroClock.periodSeconds else {
            return ["timestamps: too few samples to find the sensor's period; their arrival stamps were used"]
        }
        return [
            "timestamps: the gyroscope's \(gyroClock.regularised) samples put on its own grid of \(fixed(period * 1e3, 3)) ms from their arrival stamps (pulled back to an early one \(gyroClock.pulledBack) times, moved forward \(gyroClock.movedForward))"
        ]
    }

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
                    if let a = record.values[.accel] {
                        merger.accelerometer(a, timestampNanoseconds: record.timestampNanoseconds)
                    }
                    if record.values[.anglvel] != nil { gyroRecords.append(record) }
                }
            }
            return gyroRecords.sorted { $0.timestampNanoseconds < $1.timestampNanoseconds }.compactMap {
                merger.gyroscope(
                    $0.values[.anglvel]!,
                    timestampNanoseconds: gyroClock.time(arrivalNanoseconds: $0.timestampNanoseconds))
            }
        }
    }
}
