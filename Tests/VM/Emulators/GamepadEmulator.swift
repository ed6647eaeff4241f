import CLinux
import Glibc
import Mouse3DLinux

/// What the Sony controller emulators share: a uhid device that answers the driver's feature-report
/// requests on its own thread, streams a motion script, and unplugs deterministically.
/// Subclasses give the descriptor, the feature reports and the input report layout.
public class GamepadEmulator: UHIDEmulator, @unchecked Sendable {
    private var streaming = false
    /// Which stream runs: a new one replaces the one before (two threads reporting at once made
    /// the controller's clock run twice as fast).
    private var generation = 0
    /// The HID name; the motion device is this plus " Motion Sensors".
    public let name: String
    /// The MAC address the controller reports (the evdev `uniq`), most significant byte first.
    public let macAddress: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    init(name: String, vendor: UInt32, product: UInt32, reportDescriptor: [UInt8]) throws {
        self.name = name
        try super.init(
            identity: .init(name: name, bus: UInt16(BUS_USB), vendor: vendor, product: product),
            reportDescriptor: reportDescriptor)
    }

    /// The feature report `number` with its id first, or `nil` to refuse it.
    func featureReport(_ number: UInt8) -> [UInt8]? { nil }

    /// One input report with this motion, the sensor clock advanced by `microseconds`.
    func motionReport(degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>, microseconds: UInt32)
        -> [UInt8]
    { [] }

    override func handle(_ request: UHIDDevice.Request) {
        if case .getReport(let id, let number, _) = request, let data = featureReport(number) {
            try? device.replyToGetReport(id: id, data: data)
        } else {
            super.handle(request)
        }
    }

    /// Sends one input report with this motion (°/s and m/s² in the controller's x, y, z).
    public func sendMotion(degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>, microseconds: UInt32)
        throws
    {
        try device.input(
            motionReport(
                degreesPerSecond: degreesPerSecond, metersPerSecondSquared: metersPerSecondSquared,
                microseconds: microseconds))
    }

    /// Streams `script` as input reports at `hertz` on a thread of its own, looping it, until
    /// ``stopStreaming()`` or unplugging. Returns at once. Each report carries the step in force at
    /// its time, or with `integrating` the mean rate since the previous report (so that reports
    /// spanning a change of step, or a stretch skipped because the VM was slow, still add up to the
    /// script's angle). Reports owed after a stall go in a burst (up to 2 s of them); integrating,
    /// more than 8 behind, each of them spans up to ``longestCatchUp`` until it has caught up.
    /// `gyroBiasDegreesPerSecond` is added to every gyroscope reading, as an
    /// uncalibrated sensor's offset. At `gate`'s closed gates the script holds (``ScriptGate``).
    public func startStreaming(
        _ script: MotionScript, hertz: Double, integrating: Bool = false,
        gyroBiasDegreesPerSecond: SIMD3<Double> = .zero, gate: ScriptGate = ScriptGate()
    ) {
        let mine = lock.withLock {
            streaming = true
            generation += 1
            sentSeconds = 0
            return generation
        }
        DedicatedThread.start { [weak self] in
            let period = UInt64(1e9 / hertz)
            let start = MonotonicClock.nanoseconds()
            var next = start
            var previous = start - period
            var previousElapsed = 0.0
            var refusedSaid = false
            while let self, self.lock.withLock({ self.streaming && !self.stopped && self.generation == mine }) {
                let elapsed = gate.scriptSeconds(atDeviceSeconds: Double(next - start) / 1e9)
                let step = script.step(at: elapsed.truncatingRemainder(dividingBy: script.duration))
                // The report's clock advances by the time since the last report, skipped ones included,
                // as a real controller's does.
                let rate =
                    integrating
                    ? script.degreesPerSecond(
                        from: previousElapsed, to: elapsed, overDeviceSeconds: Double(next - previous) / 1e9)
                    : step.degreesPerSecond
                previousElapsed = elapsed
                do {
                    try self.sendMotion(
                        degreesPerSecond: rate + gyroBiasDegreesPerSecond,
                        metersPerSecondSquared: step.metersPerSecondSquared,
                        microseconds: UInt32((next - previous) / 1000))
                } catch {
                    // Said once a stream: a report the kernel refused (the device destroyed through
                    // this descriptor: EINVAL; the descriptor closed: EBADF) tells a test's failure
                    // from a driver that dropped a device whose reports still go in.
                    if !refusedSaid {
                        refusedSaid = true
                        StandardError.write("VMTEST-INFO \(self.modelName): an input report was refused: \(error)\n")
                    }
                }
                self.lock.withLock { self.sentSeconds = elapsed }
                previous = next
                next += period
                // Behind (the VM was starved): the reports owed go at once, each with its own time and
                // motion, as a controller's buffered reports reach a host that stalled. Over 2 s
                // behind, the controller lost them: skip ahead (the next report's clock jumps).
                let now = MonotonicClock.nanoseconds()
                // Integrating, and more than 8 reports behind: the next report spans what is owed, up
                // to 100 ms (its mean rate keeps the script's angle; mouse3d takes a step under
                // 0.25 s as motion). Why: in the seat VM the guest could not keep up with 250
                // reports a second for long (each goes through hid-playstation, the send unit and
                // the receiver, all emulated), fell 2 s behind again and again and skipped, and
                // the skipped seconds' motion was lost: seat_send_unit missed five attempts of
                // five in a clean CI run (session 40), the send unit saying "the motion samples
                // stopped for 2.01 s" each time, while the VM itself stalled at most 151 ms.
                if integrating && now > next + 8 * period { next = min(now, previous + Self.longestCatchUp) }
                if next + 2_000_000_000 < now { next = now + period }
                MonotonicClock.sleep(untilNanoseconds: next)
            }
        }
    }

    /// The longest span one report covers when an integrating stream catches up (nanoseconds).
    static var longestCatchUp: UInt64 { 100_000_000 }

    /// How far into the script the stream has sent, in seconds.
    private var sentSeconds = 0.0
    public var scriptSecondsSent: Double { lock.withLock { sentSeconds } }

    /// Stops the stream started by ``startStreaming(_:hertz:)``.
    public func stopStreaming() { lock.withLock { streaming = false } }

    /// Gone once no input device carries the controller's name.
    override func isGone() -> Bool {
        let entries = (try? DirectoryListing.names(in: "/sys/class/input")) ?? []
        return !entries.contains { entry in
            (try? FileContents.read(path: "/sys/class/input/\(entry)/name")).map {
                String(decoding: $0, as: UTF8.self).hasPrefix(name)
            } ?? false
        }
    }

    static func clamp(_ value: Double) -> Int16 { Int16(max(-32768, min(32767, value.rounded()))) }

    /// A calibration block both Sony drivers read the same way: gyro biases 0; the three gyro
    /// plus/minus pairs symmetric (so the USB and Bluetooth orders agree); speeds; accel plus/minus.
    static func calibration(
        reportID: UInt8, gyroCountsPerDegreePerSecond: Double, accelerometerCountsPerG: Double, size: Int
    ) -> [UInt8] {
        let gyroPlus = Int16(gyroCountsPerDegreePerSecond * 540)  // counts at +540 °/s
        let accelPlus = Int16(accelerometerCountsPerG)
        var r: [UInt8] = [reportID]
        for v in [
            0, 0, 0, gyroPlus, -gyroPlus, gyroPlus, -gyroPlus, gyroPlus, -gyroPlus, 540, 540,
            accelPlus, -accelPlus, accelPlus, -accelPlus, accelPlus, -accelPlus
        ] as [Int16] {
            r += le16(v)
        }
        return r + [UInt8](repeating: 0, count: max(0, size - r.count))
    }
}
