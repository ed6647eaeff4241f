/// The identity and capabilities of the kernel's xpad driver for a wired Xbox 360 pad (045e:028e,
/// `xpad_device[]`, `xpad_common_btn`, `xpad360_btn`, `xpad_set_up_abs` in
/// drivers/input/joystick/xpad.c of Debian 12's 6.1 kernel), which the virtual gamepad copies
/// exactly. SDL numbers an evdev pad's buttons and axes in code order, so this set, and only this
/// set, gives the numbering of the mappings in SDL's database for 045e:028e (b0 A … b10 right
/// stick, a0…a5 X Y Z RX RY RZ, h0 the d-pad); SDL 2.26.5 also falls back to its XInput mapping
/// for any name containing "X-Box" on Linux. It names the pad "Xbox 360 Controller" from the ids.
///
/// One difference from xpad: the sticks' fuzz is 0, not 16. The input core drops an axis change
/// smaller than half the fuzz (`input_defuzz_abs_event`), and a slow gyro turn moves the stick by
/// less; SDL ignores fuzz and flat.
public enum Xbox360Layout {
    /// The device name xpad gives this pad.
    public static let name = "Microsoft X-Box 360 pad"
    /// BUS_USB, Microsoft, Xbox 360 pad, and a bcdDevice SDL's database lists for it on Linux.
    public static let bus: UInt16 = 0x03
    public static let vendor: UInt16 = 0x045e
    public static let product: UInt16 = 0x028e
    public static let version: UInt16 = 0x0114

    /// Event types and codes (`<linux/input-event-codes.h>`).
    public enum Code {
        public static let evKey: UInt16 = 1, evAbs: UInt16 = 3
        public static let btnA: UInt16 = 0x130, btnB: UInt16 = 0x131, btnX: UInt16 = 0x133, btnY: UInt16 = 0x134
        public static let btnTL: UInt16 = 0x136, btnTR: UInt16 = 0x137, btnTL2: UInt16 = 0x138, btnTR2: UInt16 = 0x139
        public static let btnSelect: UInt16 = 0x13a, btnStart: UInt16 = 0x13b, btnMode: UInt16 = 0x13c
        public static let btnThumbL: UInt16 = 0x13d, btnThumbR: UInt16 = 0x13e
        public static let btnDpadUp: UInt16 = 0x220, btnDpadDown: UInt16 = 0x221
        public static let btnDpadLeft: UInt16 = 0x222, btnDpadRight: UInt16 = 0x223
        public static let absX: UInt16 = 0x00, absY: UInt16 = 0x01, absZ: UInt16 = 0x02
        public static let absRX: UInt16 = 0x03, absRY: UInt16 = 0x04, absRZ: UInt16 = 0x05
        public static let absHat0X: UInt16 = 0x10, absHat0Y: UInt16 = 0x11
    }

    /// The keys, in code order: A B X Y (BTN_SOUTH EAST NORTH WEST), the shoulders, back, start,
    /// guide, the stick clicks. No BTN_TL2/TR2 (the triggers are axes) and no d-pad keys (a hat).
    public static let keys: [UInt16] = [
        Code.btnA, Code.btnB, Code.btnX, Code.btnY, Code.btnTL, Code.btnTR, Code.btnSelect, Code.btnStart, Code.btnMode,
        Code.btnThumbL, Code.btnThumbR
    ]

    /// One absolute axis.
    public struct Axis: Sendable, Equatable {
        public var code: UInt16
        public var minimum: Int32
        public var maximum: Int32
        public var fuzz: Int32
        public var flat: Int32
    }

    /// The sticks (up and left negative), the triggers (0...255), the d-pad's hat (-1...1).
    public static let axes: [Axis] = [
        Axis(code: Code.absX, minimum: -32768, maximum: 32767, fuzz: 0, flat: 128),
        Axis(code: Code.absY, minimum: -32768, maximum: 32767, fuzz: 0, flat: 128),
        Axis(code: Code.absZ, minimum: 0, maximum: 255, fuzz: 0, flat: 0),
        Axis(code: Code.absRX, minimum: -32768, maximum: 32767, fuzz: 0, flat: 128),
        Axis(code: Code.absRY, minimum: -32768, maximum: 32767, fuzz: 0, flat: 128),
        Axis(code: Code.absRZ, minimum: 0, maximum: 255, fuzz: 0, flat: 0),
        Axis(code: Code.absHat0X, minimum: -1, maximum: 1, fuzz: 0, flat: 0),
        Axis(code: Code.absHat0Y, minimum: -1, maximum: 1, fuzz: 0, flat: 0)
    ]

    /// A stick's value for a deflection of -1...1 (-1 → -32768, 0 → 0, 1 → 32767).
    public static func stickValue(_ deflection: Double) -> Int32 {
        let d = min(1, max(-1, deflection.isFinite ? deflection : 0))
        return Int32((d < 0 ? d * 32768 : d * 32767).rounded())
    }

    /// A trigger's value for a pull of 0...1.
    public static func triggerValue(_ pull: Double) -> Int32 {
        Int32((min(1, max(0, pull.isFinite ? pull : 0)) * 255).rounded())
    }
}
