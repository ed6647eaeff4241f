import CLinux
import Glibc
import Mouse3DLinux

/// A USB Sony DualSense (054c:0ce6) emulated over `/dev/uhid`, for the kernel's hid-playstation
/// driver: it answers the feature reports the driver asks for at probe (0x09 pairing info with the
/// MAC, 0x20 firmware info, 0x05 IMU calibration) and sends input report 0x01 with motion.
///
/// Facts used (from hid-playstation): USB input report 0x01 is 64 bytes; buttons at bytes 8–10;
/// gyroscope x/y/z (s16) at bytes 16–21, accelerometer at 22–27, sensor timestamp (u32, units of
/// 1/3 µs) at 28; the driver reports gyro in 1024 units per °/s and acceleration in 8192 units per
/// g, computed from the calibration report as `raw * speed2x * 1024 / (plus - minus)` and
/// `(raw - (plus - range/2)) * 16384 / range` with `range = plus - minus`.
public final class DualSenseEmulator: GamepadEmulator, @unchecked Sendable {
    /// The HID name; the motion device is this plus " Motion Sensors".
    public static let name = "Sony Interactive Entertainment DualSense Wireless Controller"
    /// Raw gyroscope counts per °/s and accelerometer counts per g of this emulated unit. The
    /// calibration report makes the driver's output exactly 1024 per °/s and 8192 per g.
    public static let gyroCountsPerDegreePerSecond = 16.0
    public static let accelerometerCountsPerG = 8192.0

    private var sequence: UInt8 = 0
    private var timestamp: UInt32 = 0
    private var heldButtons: Set<Button> = []
    private var sticks: [UInt8] = [0x80, 0x80, 0x80, 0x80]
    private var hat: UInt8 = 8
    private var triggers: [UInt8] = [0, 0]

    /// Face, shoulder and system buttons, by their bit in input report 0x01 (byte * 8 + bit).
    public enum Button: Int, Sendable {
        case square = 68, cross = 69, circle = 70, triangle = 71
        case l1 = 72, r1 = 73, l2 = 74, r2 = 75, create = 76, options = 77, l3 = 78, r3 = 79
        case ps = 80
    }

    /// The DualSense Edge's HID name (054c:0df2: the same reports, its own id).
    public static let edgeName = "Sony Interactive Entertainment DualSense Edge Wireless Controller"

    /// Creates the device (a DualSense Edge with `edge`); it answers the driver on its own thread
    /// until unplugged.
    public init(edge: Bool = false) throws {
        try super.init(
            name: edge ? Self.edgeName : Self.name, vendor: 0x054C, product: edge ? 0x0DF2 : 0x0CE6,
            reportDescriptor: Self.reportDescriptor())
    }

    /// Holds exactly these buttons in the reports that follow.
    public func hold(_ buttons: Set<Button>) { lock.withLock { heldButtons = buttons } }

    /// Puts the sticks (report bytes 1–4: left x, y, right x, y; 0–255, 0x80 centred, y down) and
    /// the d-pad (byte 8's low nibble: 0 up, then clockwise in eighths, 8 released) in the reports
    /// that follow.
    public func set(sticks: [UInt8], dpad: UInt8) {
        lock.withLock {
            self.sticks = sticks
            hat = dpad
        }
    }

    /// Pulls the analog triggers (report bytes 5 and 6: L2, R2; 0 released, 255 fully) in the
    /// reports that follow. (Their digital BTN_TL2/BTN_TR2 bits are the buttons' own, ``hold(_:)``.)
    public func set(triggers: [UInt8]) { lock.withLock { self.triggers = triggers } }

    /// The report descriptor: vendor-defined reports of the sizes the driver expects.
    static func reportDescriptor() -> [UInt8] {
        var d = HIDReportDescriptor()
        d.usagePage(0x01)  // generic desktop
        d.usage(0x05)  // game pad
        d.collection(0x01)
        d.usagePage(0xFF00)
        d.logical(0, 255)
        for (id, kind, payload) in [
            (0x01, 0, 63), (0x02, 1, 47), (0x05, 2, 40), (0x08, 2, 47), (0x09, 2, 19), (0x20, 2, 63)
        ] {
            d.reportID(Int64(id))
            d.usage(Int64(0x20 + id))
            d.fields(bits: 8, count: Int64(payload))
            switch kind {
            case 0: d.input(0x02)
            case 1: d.output(0x02)
            default: d.feature(0x02)
            }
        }
        d.endCollection()
        return d.bytes
    }

    override func featureReport(_ number: UInt8) -> [UInt8]? {
        switch number {
        case 0x09:  // pairing info: MAC address, least significant byte first
            return [0x09] + macAddress.reversed() + [UInt8](repeating: 0, count: 13)
        case 0x20:  // firmware info: build date text, then hardware (24) and firmware (28) versions
            var r = [UInt8](repeating: 0, count: 64)
            r[0] = 0x20
            r.replaceSubrange(1..<20, with: Array("Nov 22 2026 00:00:0".utf8))
            r.replaceSubrange(24..<28, with: le32(UInt32(0x0000_0413)))
            r.replaceSubrange(28..<32, with: le32(UInt32(0x0100_0000)))
            return r
        case 0x05:
            return Self.calibration(
                reportID: 0x05, gyroCountsPerDegreePerSecond: Self.gyroCountsPerDegreePerSecond,
                accelerometerCountsPerG: Self.accelerometerCountsPerG, size: 41)
        default:
            return nil
        }
    }

    override func motionReport(
        degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>, microseconds: UInt32
    ) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 64)
        r[0] = 0x01
        lock.withLock {
            r[5] = triggers[0]
            r[6] = triggers[1]
            for i in 0..<4 { r[1 + i] = sticks[i] }
            r[8] = hat
            r[7] = sequence
            sequence &+= 1
            timestamp &+= microseconds &* 3
            r.replaceSubrange(28..<32, with: le32(timestamp))
        }
        for button in lock.withLock({ heldButtons }) { r[button.rawValue / 8] |= 1 << UInt8(button.rawValue % 8) }
        for axis in 0..<3 {
            r.replaceSubrange(
                16 + 2 * axis..<18 + 2 * axis,
                with: le16(Self.clamp(degreesPerSecond[axis] * Self.gyroCountsPerDegreePerSecond)))
            r.replaceSubrange(
                22 + 2 * axis..<24 + 2 * axis,
                with: le16(Self.clamp(metersPerSecondSquared[axis] / 9.80665 * Self.accelerometerCountsPerG)))
        }
        r[33] = 0x80  // touch points inactive
        r[37] = 0x80
        r[53] = 0x0A  // battery
        return r
    }
}

func le16(_ v: Int16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
func le32(_ v: Int32) -> [UInt8] { le32(UInt32(bitPattern: v)) }

/// A minimal mutex over `pthread_mutex_t`, so the emulators need no Foundation.
final class NSLockLite: @unchecked Sendable {
    // @unchecked: the mutex serialises every access it guards.
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
