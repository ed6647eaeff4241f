import CLinux
import Glibc
import Mouse3DLinux

/// What the Sony controller emulators share: a uhid device that answers the driver's feature-report
/// requests on its own thread, streams a motion script, and unplugs deterministically.
/// Subclasses give the descriptor, the feature reports and the input report layout.
public class GamepadEmulator: @unchecked Sendable {
    // @unchecked: `device` is Sendable; mutable state is guarded by `lock`.
    let device: UHIDDevice
    let lock = NSLockLite()
    private var stopped = false
    private var streaming = false
    /// The HID name; the motion device is this plus " Motion Sensors".
    public let name: String
    /// The MAC address the controller reports (the evdev `uniq`), most significant byte first.
    public let macAddress: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    init(name: String, vendor: UInt32, product: UInt32, reportDescriptor: [UInt8]) throws {
        self.name = name
        device = try UHIDDevice(
            identity: .init(name: name, bus: UInt16(BUS_USB), vendor: vendor, product: product),
            reportDescriptor: reportDescriptor)
        let device = self.device
        DedicatedThread.start { [weak self] in
            while let self, !self.lock.withLock({ self.stopped }) { self.serviceOnce(device) }
        }
    }

    deinit {
        lock.withLock { stopped = true }
        try? device.destroy()
    }

    /// The feature report `number` with its id first, or `nil` to refuse it.
    func featureReport(_ number: UInt8) -> [UInt8]? { nil }

    /// One input report with this motion, the sensor clock advanced by `microseconds`.
    func motionReport(degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>, microseconds: UInt32) -> [UInt8] { [] }

    func serviceOnce(_ device: UHIDDevice) {
        var poll = pollfd(fd: device.descriptor, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, 50) > 0, let request = try? device.nextRequest() else { return }
        switch request {
        case .getReport(let id, let number, _):
            if let data = featureReport(number) { try? device.replyToGetReport(id: id, data: data) } else { try? device.failGetReport(id: id) }
        case .setReport(let id, _, _, _):
            try? device.replyToSetReport(id: id)
        case .output, .lifecycle:
            break
        }
    }

    /// Sends one input report with this motion (°/s and m/s² in the controller's x, y, z).
    public func sendMotion(degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>, microseconds: UInt32) throws {
        try device.input(motionReport(degreesPerSecond: degreesPerSecond, metersPerSecondSquared: metersPerSecondSquared, microseconds: microseconds))
    }

    /// Streams `script` as input reports at `hertz` on a thread of its own, looping it, until
    /// ``stopStreaming()`` or unplugging. Returns at once.
    public func startStreaming(_ script: MotionScript, hertz: Double) {
        lock.withLock { streaming = true }
        DedicatedThread.start { [weak self] in
            let period = UInt64(1e9 / hertz)
            let start = MonotonicClock.nanoseconds()
            var next = start
            while let self, self.lock.withLock({ self.streaming && !self.stopped }) {
                let elapsed = Double(next - start) / 1e9
                let step = script.step(at: elapsed.truncatingRemainder(dividingBy: script.duration))
                try? self.sendMotion(degreesPerSecond: step.degreesPerSecond, metersPerSecondSquared: step.metersPerSecondSquared,
                                     microseconds: UInt32(period / 1000))
                next += period
                // Behind (the VM is slow): skip ahead rather than burst, which would starve the CPU.
                let now = MonotonicClock.nanoseconds()
                if next < now { next = now + period }
                MonotonicClock.sleep(untilNanoseconds: next)
            }
        }
    }

    /// Stops the stream started by ``startStreaming(_:hertz:)``.
    public func stopStreaming() { lock.withLock { streaming = false } }

    /// Unplugs the controller and waits (up to 5 s) until the kernel has removed its input devices.
    public func unplug() throws {
        lock.withLock { stopped = true }
        try device.destroy()
        let end = MonotonicClock.nanoseconds() + 5_000_000_000
        while MonotonicClock.nanoseconds() < end {
            let names = (try? DirectoryListing.names(in: "/sys/class/input")) ?? []
            let present = names.contains { entry in
                (try? FileContents.read(path: "/sys/class/input/\(entry)/name")).map { String(decoding: $0, as: UTF8.self).hasPrefix(name) } ?? false
            }
            if !present { return }
            MonotonicClock.sleep(nanoseconds: 20_000_000)
        }
    }

    static func clamp(_ value: Double) -> Int16 { Int16(max(-32768, min(32767, value.rounded()))) }

    /// A calibration block both Sony drivers read the same way: gyro biases 0; the three gyro
    /// plus/minus pairs symmetric (so the USB and Bluetooth orders agree); speeds; accel plus/minus.
    static func calibration(reportID: UInt8, gyroCountsPerDegreePerSecond: Double, accelerometerCountsPerG: Double, size: Int) -> [UInt8] {
        let gyroPlus = Int16(gyroCountsPerDegreePerSecond * 540)  // counts at +540 °/s
        let accelPlus = Int16(accelerometerCountsPerG)
        var r: [UInt8] = [reportID]
        for v in [0, 0, 0, gyroPlus, -gyroPlus, gyroPlus, -gyroPlus, gyroPlus, -gyroPlus, 540, 540,
                  accelPlus, -accelPlus, accelPlus, -accelPlus, accelPlus, -accelPlus] as [Int16] {
            r += le16(v)
        }
        return r + [UInt8](repeating: 0, count: max(0, size - r.count))
    }
}
