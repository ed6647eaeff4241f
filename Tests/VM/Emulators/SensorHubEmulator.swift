import CLinux
import Dispatch
import Glibc
import Mouse3DLinux

/// A HID sensor hub with a 3D accelerometer (report 1) and a 3D gyrometer (report 2), emulated over
/// `/dev/uhid` for the kernel's hid-sensor-hub, hid-sensor-accel-3d and hid-sensor-gyro-3d drivers,
/// which turn it into IIO devices `accel_3d` and `gyro_3d`.
///
/// Facts used (HID Usage Tables, Sensors page 0x20; linux/hid-sensor-ids.h): accelerometer 3D 0x73,
/// gyrometer 3D 0x76; properties connection type 0x0309, reporting state 0x0316, power state 0x0319,
/// report interval 0x030E, change sensitivity 0x1000|data; sensor state 0x0201, sensor event 0x0202;
/// acceleration x/y/z 0x0453–0x0455, angular velocity x/y/z 0x0457–0x0459. Values carry unit
/// exponent -3 and the sensors' default units (g, °/s), so the drivers' scales are
/// 9.80665e-3 m/s² and π/180·1e-3 rad/s per count.
public final class SensorHubEmulator: UHIDEmulator, @unchecked Sendable {
    // @unchecked: mutable state is guarded by `lock`.
    /// Raw counts per g and per °/s (unit exponent -3).
    public static let countsPerG = 1000.0
    public static let countsPerDegreePerSecond = 1000.0

    /// Feature reports by id (connection, reporting state, power state, sensor state, interval,
    /// sensitivity, maximum, minimum), as the driver last set them.
    private var features: [UInt8: [UInt8]] = [:]
    /// Raw x, y, z values the next polled input report carries, by report id.
    private var values: [UInt8: [Int32]] = [1: [0, 0, 100], 2: [0, 0, 0]]

    /// Creates the hub and answers the drivers' requests on a background queue until deinit.
    public init() throws {
        for id: UInt8 in [1, 2] {
            features[id] = [id, 0, 0, 0, 1] + le32(UInt32(10)) + le16(1) + le16(Int16.max) + le16(-Int16.max)
        }
        try super.init(
            identity: .init(name: "mouse3d test sensor hub", bus: UInt16(BUS_USB), vendor: 0x1209, product: 0x3D01),
            reportDescriptor: Self.reportDescriptor())
    }

    /// Gone once no IIO device is left.
    override func isGone() -> Bool {
        !((try? DirectoryListing.names(in: "/sys/bus/iio/devices")) ?? []).contains { $0.hasPrefix("iio:device") }
    }

    /// Sets what a polled read (`in_*_raw`) returns: acceleration in m/s² and rates in °/s.
    public func setReading(metersPerSecondSquared a: SIMD3<Double>, degreesPerSecond w: SIMD3<Double>) {
        lock.withLock {
            values[1] = (0..<3).map { Int32((a[$0] / 9.80665 * Self.countsPerG).rounded()) }
            values[2] = (0..<3).map { Int32((w[$0] * Self.countsPerDegreePerSecond).rounded()) }
        }
    }

    /// Pushes input reports for both sensors at `hertz` on a background queue (as sensors reporting on
    /// their own do) until deinit. Returns at once.
    public func startReporting(hertz: Double) {
        DedicatedThread.start { [weak self] in
            let period = UInt64(1e9 / hertz)
            var next = MonotonicClock.nanoseconds()
            while let self, !self.lock.withLock({ self.stopped }) {
                try? self.pushReport(sensor: 1)
                try? self.pushReport(sensor: 2)
                next += period
                // Behind (the VM is slow): skip ahead rather than burst, which would starve the CPU.
                let now = MonotonicClock.nanoseconds()
                if next < now { next = now + period }
                MonotonicClock.sleep(untilNanoseconds: next)
            }
        }
    }

    private var generation = 0
    /// How far into the script the stream has sent, in seconds.
    private var sentSeconds = 0.0
    public var scriptSecondsSent: Double { lock.withLock { sentSeconds } }
    /// Ticks of the current stream sent more than ``lateBound`` after they were due, and the worst
    /// lateness, in milliseconds: the kernel stamps a hub's reports as they arrive, so a late tick
    /// is a sample stamped late (a starved TCG thread, not a device: a real hub's samples come on
    /// time and only their delivery can be late).
    private var late = (count: 0, worstMilliseconds: 0.0)
    public var lateTicks: (count: Int, worstMilliseconds: Double) { lock.withLock { late } }
    public static let lateBound: UInt64 = 25_000_000

    /// Streams `script` (mouse3d's frame) at `hertz`, both sensors each tick, until deinit or the
    /// next stream, as a sensor on its own clock does: tick `n` is due `n` periods after the start
    /// and carries the mean rate over the period that ends there (what a gyroscope integrating over
    /// its interval reports) and the force at that moment, turned into the chip's axes by `rates`
    /// and `forces` (which carries the sign the hub reads with). The kernel stamps each report as
    /// it arrives, so a tick sent late is stamped late, as a real hub's is; late ticks are sent at
    /// once (a burst), and only a thread more than half a second behind drops the ticks it missed
    /// (their motion is lost, as a real hub's samples are when its buffer overflows). A polled read
    /// between ticks gets the latest values. At `gate`'s closed gates the script holds
    /// (``ScriptGate``) while the ticks go on.
    public func stream(
        _ script: MotionScript, hertz: Double = 100, rates: @escaping @Sendable (SIMD3<Double>) -> SIMD3<Double>,
        forces: @escaping @Sendable (SIMD3<Double>) -> SIMD3<Double>, gate: ScriptGate = ScriptGate()
    ) {
        let mine = lock.withLock {
            generation += 1
            sentSeconds = 0
            late = (0, 0)
            return generation
        }
        DedicatedThread.start { [weak self] in
            let period = 1 / hertz
            let start = MonotonicClock.nanoseconds()
            var tick: UInt64 = 1
            func due(_ n: UInt64) -> UInt64 { start + UInt64((Double(n) * period * 1e9).rounded()) }
            MonotonicClock.sleep(untilNanoseconds: due(tick))
            while let self, self.lock.withLock({ !self.stopped && self.generation == mine }) {
                let from = gate.scriptSeconds(atDeviceSeconds: Double(tick - 1) * period)
                let end = gate.scriptSeconds(atDeviceSeconds: Double(tick) * period)
                let step = script.step(at: end.truncatingRemainder(dividingBy: script.duration))
                let rate = script.degreesPerSecond(from: from, to: end, overDeviceSeconds: period)
                self.setReading(
                    metersPerSecondSquared: forces(step.metersPerSecondSquared), degreesPerSecond: rates(rate))
                let sentAt = MonotonicClock.nanoseconds()
                try? self.pushReport(sensor: 1)
                try? self.pushReport(sensor: 2)
                self.lock.withLock {
                    self.sentSeconds = end
                    // Counted for this stream only: a stream started meanwhile has its own count.
                    if self.generation == mine && sentAt > due(tick) + Self.lateBound {
                        self.late.count += 1
                        self.late.worstMilliseconds = max(
                            self.late.worstMilliseconds, Double(sentAt - due(tick)) / 1e6)
                    }
                }
                tick += 1
                let now = MonotonicClock.nanoseconds()
                if now > due(tick) + 500_000_000 {
                    // Far behind: the ticks missed are dropped.
                    tick = UInt64((Double(now - start) * 1e-9 / period).rounded(.up))
                }
                MonotonicClock.sleep(untilNanoseconds: due(tick))
            }
        }
    }

    /// Pushes an input report for sensor `id` (1 accelerometer, 2 gyrometer) with the current values,
    /// as a sensor reporting on its own does (buffered IIO reads).
    public func pushReport(sensor id: UInt8) throws {
        try device.input(inputReport(id))
    }

    func inputReport(_ id: UInt8) -> [UInt8] {
        let v = lock.withLock { values[id] ?? [0, 0, 0] }
        // id, sensor state (2 = ready), sensor event (4 = poll response), x, y, z (s32).
        return [id, 2, 4] + v.flatMap { le32($0) }
    }

    override func handle(_ request: UHIDDevice.Request) {
        switch request {
        case .getReport(let id, let number, let type):
            guard number == 1 || number == 2 else {
                try? device.failGetReport(id: id)
                return
            }
            if type == UInt8(UHID_FEATURE_REPORT.rawValue) {
                try? device.replyToGetReport(id: id, data: lock.withLock { features[number]! })
            } else {
                try? device.replyToGetReport(id: id, data: inputReport(number))
            }
        case .setReport(let id, let number, _, let data):
            if number == 1 || number == 2, data.count == 15 { lock.withLock { features[number] = data } }
            try? device.replyToSetReport(id: id)
        case .output, .lifecycle:
            break
        }
    }

    /// The descriptor: two physical collections, one per sensor, each with a feature report of 15
    /// bytes and an input report of 15 bytes.
    static func reportDescriptor() -> [UInt8] {
        var d = HIDReportDescriptor()
        for (id, sensor, firstData) in [(Int64(1), Int64(0x73), Int64(0x0453)), (2, 0x76, 0x0457)] {
            let dataBase = firstData - 1  // 0x0452 acceleration, 0x0456 angular velocity
            d.usagePage(0x20)
            d.usage(sensor)
            d.collection(0x00)
            d.reportID(id)
            // Feature report: named arrays, then report interval and sensitivity/max/min.
            namedArray(&d, usage: 0x0309, selectors: 0x0830...0x0832, feature: true)  // connection type
            namedArray(&d, usage: 0x0316, selectors: 0x0840...0x0845, feature: true)  // reporting state
            namedArray(&d, usage: 0x0319, selectors: 0x0850...0x0855, feature: true)  // power state
            namedArray(&d, usage: 0x0201, selectors: 0x0800...0x0806, feature: true)  // sensor state
            d.usage(0x030E)
            d.logical(0, 0xFFFF_FFFF)
            d.fields(bits: 32, count: 1)
            d.unitExponent(0)
            d.feature(0x02)
            d.usage(0x1000 | dataBase)  // change sensitivity (absolute)
            d.logical(0, 0xFFFF)
            d.fields(bits: 16, count: 1)
            d.unitExponent(-2)
            d.feature(0x02)
            d.usage(0x2000 | dataBase)  // maximum
            d.logical(-32767, 32767)
            d.feature(0x02)
            d.usage(0x3000 | dataBase)  // minimum
            d.feature(0x02)
            // Input report: sensor state, sensor event, then x, y, z.
            namedArray(&d, usage: 0x0201, selectors: 0x0800...0x0806, feature: false)
            namedArray(&d, usage: 0x0202, selectors: 0x0810...0x0815, feature: false)
            for axis in 0..<Int64(3) {
                d.usage(firstData + axis)
                d.logical(-2_147_418_112, 2_147_483_647)
                d.fields(bits: 32, count: 1)
                d.unitExponent(-3)
                d.input(0x02)
            }
            d.endCollection()
        }
        return d.bytes
    }

    /// A one-byte array field whose values are the selectors of a logical collection.
    static func namedArray(_ d: inout HIDReportDescriptor, usage: Int64, selectors: ClosedRange<Int64>, feature: Bool) {
        d.usage(usage)
        d.logical(0, Int64(selectors.count - 1))
        d.fields(bits: 8, count: 1)
        d.collection(0x02)
        for s in selectors { d.usage(s) }
        if feature { d.feature(0x00) } else { d.input(0x00) }
        d.endCollection()
    }
}
