/// Builds HID report descriptors from items (HID 1.11, section 6.2.2: short items).
public struct HIDReportDescriptor {
    /// The encoded descriptor.
    public private(set) var bytes: [UInt8] = []

    /// An empty descriptor.
    public init() {}

    public enum ItemType: UInt8 { case main = 0, global = 1, local = 2 }

    /// Appends a short item with the smallest encoding of `value` (signed when `signed`).
    public mutating func item(_ tag: UInt8, _ type: ItemType, _ value: Int64? = nil, signed: Bool = false) {
        guard let value else {
            bytes.append(tag << 4 | type.rawValue << 2)
            return
        }
        let size: Int
        if signed {
            size = (-128...127).contains(value) ? 1 : (-32768...32767).contains(value) ? 2 : 4
        } else {
            size = (0...0xFF).contains(value) ? 1 : (0...0xFFFF).contains(value) ? 2 : 4
        }
        bytes.append(tag << 4 | type.rawValue << 2 | (size == 4 ? 3 : UInt8(size)))
        for i in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * Int64(i)))) }
    }

    /// Usage Page (global 0x0).
    public mutating func usagePage(_ page: Int64) { item(0x0, .global, page) }
    /// Usage (local 0x0).
    public mutating func usage(_ usage: Int64) { item(0x0, .local, usage) }
    /// Logical Minimum and Maximum (global 0x1, 0x2), signed.
    public mutating func logical(_ minimum: Int64, _ maximum: Int64) {
        item(0x1, .global, minimum, signed: true)
        // hid-core reads the maximum as unsigned when the minimum is not negative.
        item(0x2, .global, maximum, signed: minimum < 0)
    }
    /// Report Size in bits (global 0x7) and Report Count (global 0x9).
    public mutating func fields(bits: Int64, count: Int64) {
        item(0x7, .global, bits)
        item(0x9, .global, count)
    }
    /// Report ID (global 0x8).
    public mutating func reportID(_ id: Int64) { item(0x8, .global, id) }
    /// Unit Exponent (global 0x5), as the 4-bit two's complement nibble.
    public mutating func unitExponent(_ exponent: Int64) { item(0x5, .global, exponent & 0xF) }
    /// Collection (main 0xA): 0 physical, 1 application, 2 logical.
    public mutating func collection(_ kind: Int64) { item(0xA, .main, kind) }
    /// End Collection (main 0xC).
    public mutating func endCollection() { item(0xC, .main) }
    /// Input (main 0x8) with its flags (0x02 = data, variable, absolute; 0x00 = data, array).
    public mutating func input(_ flags: Int64) { item(0x8, .main, flags) }
    /// Output (main 0x9).
    public mutating func output(_ flags: Int64) { item(0x9, .main, flags) }
    /// Feature (main 0xB).
    public mutating func feature(_ flags: Int64) { item(0xB, .main, flags) }
}
