import Mouse3DCore
import Testing

@Suite("IIO scan element formats and record layout")
struct IIODecodingTests {
    @Test(
        "Type strings parse as the ABI describes",
        arguments: [
            ("le:s16/16>>0", false, true, 16, 16, 1, 0), ("be:s12/16>>4", true, true, 12, 16, 1, 4),
            ("le:u24/32>>8", false, false, 24, 32, 1, 8), ("le:s64/64>>0", false, true, 64, 64, 1, 0),
            ("le:s16/16", false, true, 16, 16, 1, 0), ("be:u8/8>>0", true, false, 8, 8, 1, 0),
            ("le:s16/16X3>>0", false, true, 16, 16, 3, 0)
        ])
    func parse(text: String, be: Bool, signed: Bool, bits: Int, storage: Int, repeats: Int, shift: Int) throws {
        let t = try #require(IIOScanType(text))
        #expect(t.bigEndian == be && t.signed == signed && t.realBits == bits && t.storageBits == storage)
        #expect(t.repeatCount == repeats && t.shift == shift)
    }

    @Test(
        "Malformed type strings are refused",
        arguments: [
            "", "xe:s16/16>>0", "le:x16/16>>0", "le:s16/12>>0", "le:s20/16>>0",
            "le:s16/16>>", "le:s12/16>>8", "le:s16", "le:s0/16>>0"
        ])
    func malformed(text: String) {
        #expect(IIOScanType(text) == nil)
    }

    func decode(_ type: String, _ bytes: [UInt8]) -> Int64 {
        bytes.withUnsafeBytes { IIOScanType(type)!.decode($0, at: 0) }
    }

    @Test("Values decode with endianness, sign, shift and real bits")
    func values() {
        #expect(decode("le:s16/16>>0", [0x34, 0x12]) == 0x1234)
        #expect(decode("le:s16/16>>0", [0xFF, 0xFF]) == -1)
        #expect(decode("be:s16/16>>0", [0xFF, 0xFE]) == -2)
        #expect(decode("le:u16/16>>0", [0xFF, 0xFF]) == 65535)
        // 12 bits shifted left by 4 in a big-endian word: 0x800 is the most negative 12-bit value.
        #expect(decode("be:s12/16>>4", [0x80, 0x0F]) == -2048)
        #expect(decode("be:s12/16>>4", [0x7F, 0xF0]) == 2047)
        // 24 bits in 32 of storage, shifted by 8, little-endian: bytes 1..3 hold the value.
        #expect(decode("le:s24/32>>8", [0xAA, 0xFF, 0xFF, 0xFF]) == -1)
        #expect(decode("le:s24/32>>8", [0x00, 0x56, 0x34, 0x12]) == 0x123456)
        #expect(decode("le:s32/32>>0", [0x00, 0x00, 0x00, 0x80]) == Int64(Int32.min))
        #expect(decode("le:s64/64>>0", [1, 0, 0, 0, 0, 0, 0, 0x80]) == Int64.min + 1)
        #expect(decode("be:u8/8>>0", [0xF0]) == 240)
    }

    @Test("Records follow the kernel's alignment: each element on its own size, padded to the largest")
    func layout() throws {
        let s16 = try #require(IIOScanType("le:s16/16>>0"))
        let s32 = try #require(IIOScanType("le:s32/32>>0"))
        let ts = try #require(IIOScanType("le:s64/64>>0"))
        // Three s16 and a timestamp: 6 bytes, then the s64 at 8, 16 bytes in all.
        let a = IIOScanLayout([("timestamp", 3, ts), ("accel_y", 1, s16), ("accel_x", 0, s16), ("accel_z", 2, s16)])
        #expect(a.channels.map(\.name) == ["accel_x", "accel_y", "accel_z", "timestamp"])
        #expect(a.channels.map(\.offset) == [0, 2, 4, 8])
        #expect(a.recordBytes == 16)
        // Three s16 alone: 6 bytes, padded to 2 → 6.
        #expect(IIOScanLayout([("x", 0, s16), ("y", 1, s16), ("z", 2, s16)]).recordBytes == 6)
        // s16, s32: the s32 aligns to 4; record 8.
        let b = IIOScanLayout([("a", 0, s16), ("b", 1, s32)])
        #expect(b.channels.map(\.offset) == [0, 4] && b.recordBytes == 8)
        // s32 x3 and s16: 14 bytes padded to 16.
        #expect(IIOScanLayout([("x", 0, s32), ("y", 1, s32), ("z", 2, s32), ("t", 3, s16)]).recordBytes == 16)
    }

    @Test("Mount matrices parse from sysfs text and rotate readings")
    func mountMatrix() throws {
        let m = try #require(MountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1"))
        #expect(m.apply(SIMD3(1, 2, 3)) == SIMD3(2, -1, 3))
        #expect(MountMatrix("1, 0, 0; 0, 1, 0") == nil)
        #expect(MountMatrix("a, 0, 0; 0, 1, 0; 0, 0, 1") == nil)
    }
}
