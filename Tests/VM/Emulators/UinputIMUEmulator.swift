import CLinux
import Glibc
import Mouse3DLinux

/// A motion device no driver table knows: a uinput device with `INPUT_PROP_ACCELEROMETER`,
/// ABS_X/Y/Z (8192 per g) and ABS_RX/RY/RZ (1024 per °/s) and MSC_TIMESTAMP, whose axes are a
/// rotation of mouse3d's frame (`axes(v)`, the same for both sensors), as a third-party pad or a
/// handheld's IMU may be mounted.
public final class UinputIMUEmulator: @unchecked Sendable {
    // @unchecked: `generation` is guarded by `lock`; the device is written by one stream thread.
    /// Counts per g and per °/s.
    public static let countsPerG = 8192.0, countsPerDegreePerSecond = 1024.0
    /// The device's name.
    public let name: String
    /// The uinput device.
    public let device: UinputDevice
    private let lock = NSLockLite()
    private var generation = 0

    /// Creates the device.
    public init(name: String = "mouse3d vmtest turned imu") throws {
        self.name = name
        var description = UinputDevice.Description(name: name)
        description.properties = [Int32(INPUT_PROP_ACCELEROMETER)]
        description.miscellaneous = [Int32(MSC_TIMESTAMP)]
        let accel = AbsoluteAxisInfo(value: 0, minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: 8192)
        let gyro = AbsoluteAxisInfo(
            value: 0, minimum: -2_097_152, maximum: 2_097_152, fuzz: 0, flat: 0, resolution: 1024)
        description.absoluteAxes = [
            (Int32(ABS_X), accel), (Int32(ABS_Y), accel), (Int32(ABS_Z), accel),
            (Int32(ABS_RX), gyro), (Int32(ABS_RY), gyro), (Int32(ABS_RZ), gyro)
        ]
        device = try UinputDevice(description)
    }

    /// Streams `script` (mouse3d's frame) at 200 Hz until the next stream or `stop()`: each
    /// rate the mean since the sample before, turned by `axes`; each force turned by `axes`. At
    /// `gate`'s closed gates the script holds (``ScriptGate``) while the samples go on.
    public func stream(
        _ script: MotionScript, axes: @escaping @Sendable (SIMD3<Double>) -> SIMD3<Double>,
        gate: ScriptGate = ScriptGate()
    ) {
        let mine = lock.withLock {
            generation += 1
            sentSeconds = 0
            return generation
        }
        DedicatedThread.start { [weak self] in
            let period: UInt64 = 5_000_000
            let start = MonotonicClock.nanoseconds()
            var next = start
            var previous = start
            var previousElapsed = 0.0
            while let self, self.lock.withLock({ self.generation == mine }) {
                let elapsed = gate.scriptSeconds(atDeviceSeconds: Double(next - start) / 1e9)
                let step = script.step(at: min(elapsed, script.duration - 1e-9))
                let rate = axes(
                    script.degreesPerSecond(
                        from: previousElapsed, to: elapsed, overDeviceSeconds: Double(next - previous) / 1e9))
                previousElapsed = elapsed
                previous = next
                let force = axes(step.metersPerSecondSquared)
                let codes = [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ].map { Int32($0) }
                let values =
                    (0..<3).map { Int32((force[$0] / 9.80665 * Self.countsPerG).rounded()) }
                    + (0..<3).map { Int32((rate[$0] * Self.countsPerDegreePerSecond).rounded()) }
                for (code, value) in zip(codes, values) {
                    try? self.device.write(type: Int32(EV_ABS), code: code, value: value)
                }
                try? self.device.write(
                    type: Int32(EV_MSC), code: Int32(MSC_TIMESTAMP),
                    value: Int32(truncatingIfNeeded: (next - start) / 1000))
                try? self.device.synchronize()
                self.lock.withLock { self.sentSeconds = elapsed }
                next += period
                // Behind (the VM was starved): the samples owed go at once, each with its own time and
                // motion; over 2 s behind, they are lost (the clock jumps).
                let now = MonotonicClock.nanoseconds()
                if next + 2_000_000_000 < now { next = now + period }
                MonotonicClock.sleep(untilNanoseconds: next)
            }
        }
    }

    /// How far into the script the stream has sent, in seconds.
    private var sentSeconds = 0.0
    public var scriptSecondsSent: Double { lock.withLock { sentSeconds } }

    /// Stops the stream.
    public func stop() { lock.withLock { generation += 1 } }
}
