import Mouse3DLinux

/// A USB Sony DualShock 4 (second revision, 054c:09cc) emulated over `/dev/uhid`. Linux 6.1
/// drives it with hid-sony (hid-playstation takes it over from 6.2; the report layout is the same).
///
/// Facts used (from hid-sony): the driver needs an input device from the descriptor (game pad axes
/// and buttons), reads feature 0x81 (MAC, 7 bytes), 0x02 (IMU calibration, 37 bytes) and 0xA3
/// (versions, 49 bytes) at probe; USB input report 0x01 is 64 bytes with a 16-bit sensor timestamp
/// at byte 10 (units of 16/3 µs) and gyroscope x/y/z then accelerometer x/y/z (s16) from byte 13;
/// the motion device reports 1024 units per °/s and 8192 per g.
public final class DualShock4Emulator: GamepadEmulator, @unchecked Sendable {
    /// The HID name; the motion device is this plus " Motion Sensors".
    public static let name = "Sony Interactive Entertainment Wireless Controller"
    /// Raw counts of this emulated unit; the calibration report maps them to the driver's units.
    public static let gyroCountsPerDegreePerSecond = 16.0
    public static let accelerometerCountsPerG = 8192.0
    private var timestamp: UInt16 = 0

    /// Creates the device; it answers the driver on its own thread until unplugged.
    public init() throws {
        try super.init(name: Self.name, vendor: 0x054C, product: 0x09CC, reportDescriptor: Self.reportDescriptor())
    }

    /// A game pad the generic HID input layer maps (so the driver gets its input device), with the
    /// vendor-defined rest of report 0x01 and the feature and output reports the driver uses.
    static func reportDescriptor() -> [UInt8] {
        var d = HIDReportDescriptor()
        d.usagePage(0x01)
        d.usage(0x05)  // game pad
        d.collection(0x01)
        d.reportID(0x01)
        for usage: Int64 in [0x30, 0x31, 0x32, 0x35] { d.usage(usage) }  // X, Y, Z, Rz
        d.logical(0, 255)
        d.fields(bits: 8, count: 4)
        d.input(0x02)
        d.usage(0x39)  // hat switch
        d.logical(0, 7)
        d.fields(bits: 4, count: 1)
        d.input(0x42)
        d.usagePage(0x09)  // buttons 1-14
        d.item(0x1, .local, 1)
        d.item(0x2, .local, 14)
        d.logical(0, 1)
        d.fields(bits: 1, count: 14)
        d.input(0x02)
        d.usagePage(0xFF00)
        d.usage(0x20)
        d.fields(bits: 6, count: 1)
        d.logical(0, 63)
        d.input(0x02)
        d.usagePage(0x01)
        d.usage(0x33)  // Rx
        d.usage(0x34)  // Ry
        d.logical(0, 255)
        d.fields(bits: 8, count: 2)
        d.input(0x02)
        d.usagePage(0xFF00)
        d.usage(0x21)
        d.fields(bits: 8, count: 54)
        d.input(0x02)
        for (id, kind, payload) in [(0x05, 1, 31), (0x02, 2, 36), (0x81, 2, 6), (0xA3, 2, 48)] {
            d.reportID(Int64(id))
            d.usage(Int64(0x22 + id % 16))
            d.fields(bits: 8, count: Int64(payload))
            if kind == 1 { d.output(0x02) } else { d.feature(0x02) }
        }
        d.endCollection()
        return d.bytes
    }

    override func featureReport(_ number: UInt8) -> [UInt8]? {
        switch number {
        case 0x81:  // MAC address, least significant byte first
            return [0x81] + macAddress.reversed()
        case 0x02:
            return Self.calibration(
                reportID: 0x02, gyroCountsPerDegreePerSecond: Self.gyroCountsPerDegreePerSecond,
                accelerometerCountsPerG: Self.accelerometerCountsPerG, size: 37)
        case 0xA3:  // version info: hardware version at 35, firmware at 41
            var r = [UInt8](repeating: 0, count: 49)
            r[0] = 0xA3
            r.replaceSubrange(35..<37, with: le16(Int16(0x0100)))
            r.replaceSubrange(41..<43, with: le16(Int16(0x0200)))
            return r
        default:
            return nil
        }
    }

    override func motionReport(
        degreesPerSecond: SIMD3<Double>, metersPerSecondSquared: SIMD3<Double>, microseconds: UInt32
    ) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 64)
        r[0] = 0x01
        for i in 1...4 { r[i] = 0x80 }  // sticks centred
        r[5] = 0x08  // d-pad released
        lock.withLock {
            timestamp &+= UInt16(truncatingIfNeeded: microseconds * 3 / 16)
            r.replaceSubrange(10..<12, with: le16(Int16(bitPattern: timestamp)))
        }
        for axis in 0..<3 {
            r.replaceSubrange(
                13 + 2 * axis..<15 + 2 * axis,
                with: le16(Self.clamp(degreesPerSecond[axis] * Self.gyroCountsPerDegreePerSecond)))
            r.replaceSubrange(
                19 + 2 * axis..<21 + 2 * axis,
                with: le16(Self.clamp(metersPerSecondSquared[axis] / 9.80665 * Self.accelerometerCountsPerG)))
        }
        r[30] = 0x1B  // battery: cable, charged
        r[35] = 0x80  // touch points inactive
        r[39] = 0x80
        return r
    }
}
