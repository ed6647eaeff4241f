import CLinux
import Glibc
import Mouse3DLinux

/// A Nintendo Switch Pro Controller (USB), Joy-Con (L) or Joy-Con (R) (Bluetooth) emulated over
/// `/dev/uhid`, for the kernel's hid-nintendo driver. Written from the driver's source (read, not
/// copied) and the community's protocol notes:
///
/// - The driver talks in output reports: `0x80 cmd` (USB commands, answered by input `0x81 cmd`:
///   only the Pro Controller on USB gets them) and `0x01 n rumble[8] subcommand data…`, answered by
///   input report `0x21`: byte 13 the ack, 14 the subcommand echoed, data from 15 (an SPI flash
///   read echoes its address and size, then the bytes from 20; device info has the controller type
///   at 17 and the MAC at 19–24). It reads the stick and IMU calibration from SPI flash (user areas
///   0x8010/0x801B/0x8026 first: no magic there, so the factory areas 0x603D, 0x6046, 0x6020), then
///   sets report mode 0x30, enables rumble and the IMU, asks for device info, sets the player LEDs.
/// - Input report `0x30` every 15 ms: timer, battery, 24 button bits, two 12-bit sticks, then three
///   IMU samples 5 ms apart (accelerometer x, y, z then gyroscope x, y, z, int16 LE). The driver
///   emits each sample as its own evdev frame with MSC_TIMESTAMP advancing by a third of the average
///   report interval (whole milliseconds, from the kernel's jiffies), calibrated:
///   gyro `1000·(raw − offset)·scale/(scale − offset)` at 14247 units per °/s, accel
///   `raw·scale/(scale − offset)` at 4096 per g; the right Joy-Con's Y and Z are negated (its IMU is
///   mounted mirrored), so all three report X toward the triggers, Y to the left, Z up.
///
/// Motion is given in the driver's axes (``kernelAxes(_:)`` turns mouse3d's frame into them); the
/// right Joy-Con's mirrored mounting is the emulator's business. Reports are never skipped: the driver's clock counts samples, so a skipped
/// report would lose its time; when the VM falls behind, the reports due are sent at once.
public final class SwitchControllerEmulator: UHIDEmulator, @unchecked Sendable {
    /// Which controller.
    public enum Model: String, Sendable, CaseIterable {
        case proController = "Switch Pro Controller"
        case joyConLeft = "Joy-Con (L)"
        case joyConRight = "Joy-Con (R)"

        /// The USB product id hid-nintendo matches.
        public var product: UInt32 {
            switch self {
            case .proController: 0x2009
            case .joyConLeft: 0x2006
            case .joyConRight: 0x2007
            }
        }

        /// The name of the driver's gamepad device.
        public var name: String {
            switch self {
            case .proController: "Nintendo Switch Pro Controller"
            case .joyConLeft: "Nintendo Switch Left Joy-Con"
            case .joyConRight: "Nintendo Switch Right Joy-Con"
            }
        }

        /// The name of the driver's motion device.
        public var motionName: String {
            switch self {
            case .proController: "Nintendo Switch Pro Controller IMU"
            case .joyConLeft: "Nintendo Switch Left Joy-Con IMU"
            case .joyConRight: "Nintendo Switch Right Joy-Con IMU"
            }
        }

        /// The device-info type byte: 1 left Joy-Con, 2 right, 3 Pro Controller.
        var type: UInt8 {
            switch self {
            case .proController: 3
            case .joyConLeft: 1
            case .joyConRight: 2
            }
        }
    }

    /// The model emulated.
    public let model: Model
    /// The MAC the controller reports (the evdev `uniq`), most significant byte first.
    public let macAddress: [UInt8]
    /// Factory IMU calibration in this unit's flash: offsets and scales per axis, as real units have
    /// (the driver subtracts the gyroscope's offsets, and scales both sensors).
    static let gyroOffset: [Int32] = [-12, 9, 4], gyroScale: [Int32] = [13371, 13371, 13371]
    static let accelOffset: [Int32] = [-310, 160, 220], accelScale: [Int32] = [16384, 16384, 16384]
    /// Stick calibration: centre and reach either side, in 12-bit counts.
    static let stickCenter = 2048, stickReach = 1400
    /// The usual report interval. A whole 15 ms would let the driver's average (whole milliseconds
    /// over 300 reports, from 4 ms jiffies) come out at 14 half the time; a little over keeps it at 15.
    public static let usualReportPeriodNanoseconds: UInt64 = 15_020_000
    /// This controller's report interval.
    public let reportPeriodNanoseconds: UInt64
    /// The true time each sample stands for in the script: at the usual interval, 5 ms, the driver's
    /// own time base (a third of its 15 ms average, exact); at any other, a third of the interval,
    /// each sample the mean rate over its third (what the driver's stamps then miss is mouse3d's to
    /// find).
    public var sampleSeconds: Double {
        reportPeriodNanoseconds == Self.usualReportPeriodNanoseconds ? 0.005 : Double(reportPeriodNanoseconds) / 3e9
    }

    private var timer: UInt8 = 0
    private var buttons: UInt32 = 0
    private var sticks: (left: (Int, Int), right: (Int, Int)) = ((2048, 2048), (2048, 2048))
    private var streaming = false
    /// Which stream runs: a new one replaces the one before (two threads reporting at once made
    /// the controller's clock run twice as fast).
    private var generation = 0
    /// Carried rounding of each gyroscope axis, in the driver's units, so the integral is exact.
    private var gyroCarry = SIMD3<Double>.zero
    /// Samples sent since plugging.
    public private(set) var samplesSent = 0
    /// When each report of the stream was due and when it went.
    private var times: [(due: UInt64, sent: UInt64)] = []
    public var reportTimes: [(due: UInt64, sent: UInt64)]? { lock.withLock { times } }
    private var sentSeconds = 0.0
    public var scriptSecondsSent: Double { lock.withLock { sentSeconds } }

    /// Plugs the controller; it answers the driver on its own thread until unplugged. `mac`'s last
    /// byte tells two emulated controllers apart. `vendor` other than Nintendo's (0x057E) makes a
    /// third-party pad in Switch mode, which hid-nintendo takes only once given its id (`new_id`).
    /// `reportPeriodNanoseconds`: how often it reports (another than the usual moves the driver's
    /// average, and its stamps with it).
    public init(
        _ model: Model, macLastByte: UInt8 = 0x01, vendor: UInt32 = 0x057E,
        reportPeriodNanoseconds: UInt64 = usualReportPeriodNanoseconds
    ) throws {
        self.model = model
        self.reportPeriodNanoseconds = reportPeriodNanoseconds
        macAddress = [0x98, 0xB6, 0xE9, 0x5A, 0x3C, macLastByte]
        try super.init(
            identity: .init(
                name: model.name, phys: "mouse3d-test/uhid/\(model.product)",
                bus: UInt16(model == .proController ? BUS_USB : BUS_BLUETOOTH), vendor: vendor,
                product: model.product),
            reportDescriptor: Self.reportDescriptor())
    }

    /// Puts the sticks in the reports that follow: raw 12-bit counts, x then y, centre 2048 and
    /// ±1400 full (the flash's calibration), y up larger as the hardware reports it.
    public func set(leftStick: (Int, Int), rightStick: (Int, Int)) {
        lock.withLock { sticks = (leftStick, rightStick) }
    }

    /// Holds exactly these buttons (the report's 24 bits: byte 3 right side, 4 shared, 5 left side).
    public func hold(buttonBits: UInt32) { lock.withLock { buttons = buttonBits & 0xFF_FFFF } }

    /// Vendor-defined reports of the sizes a Pro Controller declares: inputs 0x21, 0x30 and 0x81,
    /// outputs 0x01, 0x10 and 0x80, 63 bytes each after the id.
    static func reportDescriptor() -> [UInt8] {
        var d = HIDReportDescriptor()
        d.usagePage(0x01)
        d.usage(0x05)  // game pad
        d.collection(0x01)
        d.usagePage(0xFF00)
        d.logical(0, 255)
        for (id, isInput) in [(0x21, true), (0x30, true), (0x81, true), (0x01, false), (0x10, false), (0x80, false)] {
            d.reportID(Int64(id))
            d.usage(Int64(id))
            d.fields(bits: 8, count: 63)
            if isInput { d.input(0x02) } else { d.output(0x02) }
        }
        d.endCollection()
        return d.bytes
    }

    override func handle(_ request: UHIDDevice.Request) {
        guard case .output(let data) = request, let kind = data.first else { return super.handle(request) }
        switch kind {
        case 0x80 where model == .proController && data.count >= 2:
            // USB handshake and baud rate are acknowledged; "no timeout" has no answer.
            if data[1] == 0x02 || data[1] == 0x03 {
                try? device.input([0x81, data[1]] + [UInt8](repeating: 0, count: 62))
            }
        case 0x01 where data.count >= 11:
            try? device.input(subcommandReply(data[10], Array(data.dropFirst(11))))
        default:
            break  // rumble alone (0x10)
        }
    }

    /// The 0x21 report answering `subcommand` with `arguments`.
    func subcommandReply(_ subcommand: UInt8, _ arguments: [UInt8]) -> [UInt8] {
        var r = header(0x21)
        r[14] = subcommand
        switch subcommand {
        case 0x02:  // device info: firmware 4.33, type, 0x02, MAC, 0x01, colours from SPI
            r[13] = 0x82
            r.replaceSubrange(15..<19, with: [0x04, 0x21, model.type, 0x02])
            r.replaceSubrange(19..<25, with: macAddress)
            r.replaceSubrange(25..<27, with: [0x01, 0x01])
        case 0x10 where arguments.count >= 5:  // SPI flash read: address and size echoed, then the bytes
            r[13] = 0x90
            let address = Int(arguments[0]) | Int(arguments[1]) << 8 | Int(arguments[2]) << 16 | Int(arguments[3]) << 24
            let size = min(Int(arguments[4]), 29)
            r.replaceSubrange(15..<20, with: arguments[0..<5])
            r.replaceSubrange(20..<20 + size, with: Self.flash(address, size))
        default:  // report mode, rumble, IMU, lights: acknowledged
            r[13] = 0x80
        }
        return r
    }

    /// `size` bytes of SPI flash from `address`: the factory stick and IMU calibration, and erased
    /// (0xFF) elsewhere, so the user calibration areas carry no magic.
    static func flash(_ address: Int, _ size: Int) -> [UInt8] {
        func pack(_ a: Int, _ b: Int) -> [UInt8] { [UInt8(a & 0xFF), UInt8((a >> 8) | (b & 0xF) << 4), UInt8(b >> 4)] }
        let c = stickCenter
        let reach = stickReach
        var image: [Int: UInt8] = [:]
        func put(_ start: Int, _ bytes: [UInt8]) { for (i, b) in bytes.enumerated() { image[start + i] = b } }
        // Left stick: above the centre, the centre, below it. Right stick: centre, below, above.
        put(0x603D, pack(reach, reach) + pack(c, c) + pack(reach, reach))
        put(0x6046, pack(c, c) + pack(reach, reach) + pack(reach, reach))
        var imu: [UInt8] = []
        for v in accelOffset + accelScale + gyroOffset + gyroScale { imu += le16(Int16(v)) }
        put(0x6020, imu)
        return (0..<size).map { image[address + $0] ?? 0xFF }
    }

    /// A report of `id` with the timer, battery, buttons and sticks filled in (64 bytes).
    private func header(_ id: UInt8) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 64)
        r[0] = id
        lock.withLock {
            r[1] = timer
            timer &+= 1
            r[2] = 0x91  // battery full (4 << 5), charging, powered
            r[3] = UInt8(buttons & 0xFF)
            r[4] = UInt8(buttons >> 8 & 0xFF)
            r[5] = UInt8(buttons >> 16 & 0xFF)
            for (offset, stick) in [(6, sticks.left), (9, sticks.right)] {
                r[offset] = UInt8(stick.0 & 0xFF)
                r[offset + 1] = UInt8(stick.0 >> 8 & 0xF) | UInt8(stick.1 & 0xF) << 4
                r[offset + 2] = UInt8(stick.1 >> 4 & 0xFF)
            }
        }
        return r
    }

    /// This controller's axes as the driver reports them (x toward the triggers, y left, z up) of a
    /// vector in mouse3d's gamepad frame: the same frame.
    public static func kernelAxes(_ v: SIMD3<Double>) -> SIMD3<Double> { v }

    /// The 0x30 report carrying three samples, each `degreesPerSecond` and `metersPerSecondSquared`
    /// in the driver's axes.
    func imuReport(_ samples: [(degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>)]) -> [UInt8] {
        var r = header(0x30)
        var carry = lock.withLock { gyroCarry }
        for (i, sample) in samples.prefix(3).enumerated() {
            var gyro = sample.degreesPerSecond * 14247  // the driver's units
            var accel = sample.metersPerSecondSquared / 9.80665 * 4096
            if model == .joyConRight {
                // Mounted mirrored: the driver negates Y and Z of what the sensor reads.
                gyro = SIMD3(gyro.x, -gyro.y, -gyro.z)
                accel = SIMD3(accel.x, -accel.y, -accel.z)
            }
            for axis in 0..<3 {
                // Inverse of the driver's calibration; the rounding carried to the next sample.
                let o = Double(Self.gyroOffset[axis])
                let s = Double(Self.gyroScale[axis])
                let want = gyro[axis] + carry[axis]
                let raw = Self.clamp(o + want * (s - o) / (1000 * s))
                let got = 1000 * (Double(raw) - o) * s / (s - o)
                carry[axis] = want - got
                let ao = Double(Self.accelOffset[axis])
                let asc = Double(Self.accelScale[axis])
                let rawAccel = Self.clamp(accel[axis] * (asc - ao) / asc)
                r.replaceSubrange(13 + 12 * i + 2 * axis..<15 + 12 * i + 2 * axis, with: le16(rawAccel))
                r.replaceSubrange(19 + 12 * i + 2 * axis..<21 + 12 * i + 2 * axis, with: le16(raw))
            }
        }
        lock.withLock {
            gyroCarry = carry
            samplesSent += samples.count
        }
        return r
    }

    static func clamp(_ value: Double) -> Int16 { Int16(max(-32768, min(32767, value.rounded()))) }

    /// Streams `script` (the driver's axes) on a thread of its own until ``stopStreaming()`` or
    /// unplugging: a report every ``reportPeriodNanoseconds``, sample `n` carrying the script's step at
    /// `(n + ½)` · ``sampleSeconds`` from the start, looping the script. Steps should last multiples
    /// of 5 ms. At `gate`'s closed gates the script holds (``ScriptGate``) while the reports go on.
    /// Returns at once.
    public func startStreaming(_ script: MotionScript, gate: ScriptGate = ScriptGate()) {
        let mine = lock.withLock {
            streaming = true
            generation += 1
            times = []
            sentSeconds = 0
            return generation
        }
        DedicatedThread.start { [weak self] in
            let start = MonotonicClock.nanoseconds()
            var report: UInt64 = 0
            while let self, self.lock.withLock({ self.streaming && !self.stopped && self.generation == mine }) {
                var samples: [(degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>)] = []
                let spacing = self.sampleSeconds
                var end = 0.0
                for i in 0..<3 {
                    let n = Double(report * 3 + UInt64(i))
                    let from = gate.scriptSeconds(atDeviceSeconds: n * spacing)
                    end = gate.scriptSeconds(atDeviceSeconds: (n + 1) * spacing)
                    let sample: (degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>)
                    if spacing == 0.005 && gate.secondsHeld == 0 {
                        // The step in force at the sample's midpoint: exact for steps whose ends are
                        // multiples of 5 ms (the scripts' are), with no sum of floating-point boundaries.
                        let step = script.step(
                            at: ((n + 0.5) * spacing).truncatingRemainder(dividingBy: script.duration))
                        sample = (step.degreesPerSecond, step.metersPerSecondSquared)
                    } else {
                        // At another spacing, or after a hold, steps end inside samples: the mean
                        // over the sample's time (held: the still sample at the gate).
                        let middle = ((from + end) / 2).truncatingRemainder(dividingBy: script.duration)
                        let local = from.truncatingRemainder(dividingBy: script.duration)
                        let rate = script.degreesPerSecond(
                            from: local, to: local + (end - from), overDeviceSeconds: spacing)
                        sample = (rate, script.step(at: middle).metersPerSecondSquared)
                    }
                    samples.append(sample)
                }
                try? self.device.input(self.imuReport(samples))
                let sent = MonotonicClock.nanoseconds()
                self.lock.withLock {
                    self.times.append((start + report * self.reportPeriodNanoseconds, sent))
                    self.sentSeconds = end
                }
                report += 1
                MonotonicClock.sleep(untilNanoseconds: start + report * self.reportPeriodNanoseconds)
            }
        }
    }

    /// Stops the stream started by ``startStreaming(_:)``.
    public func stopStreaming() { lock.withLock { streaming = false } }

    /// Gone once no input device carries the controller's name.
    override func isGone() -> Bool {
        let entries = (try? DirectoryListing.names(in: "/sys/class/input")) ?? []
        return !entries.contains { entry in
            (try? FileContents.read(path: "/sys/class/input/\(entry)/name")).map {
                String(decoding: $0, as: UTF8.self).hasPrefix(model.name)
            } ?? false
        }
    }
}
