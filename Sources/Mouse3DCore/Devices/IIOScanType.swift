/// The storage format of one IIO buffer channel, as its `scan_elements/*_type` attribute gives it:
/// `[be|le]:[s|u]BITS/STORAGE[XREPEAT][>>SHIFT]`, for example `le:s16/16>>0` or `be:s12/16>>4`
/// (Documentation/ABI/testing/sysfs-bus-iio, "scan_elements/in_..._type").
public struct IIOScanType: Sendable, Equatable, CustomStringConvertible {
    /// Whether the stored bytes are big-endian.
    public var bigEndian: Bool
    /// Whether the value is two's complement signed.
    public var signed: Bool
    /// Bits that carry the value.
    public var realBits: Int
    /// Bits the value occupies in the buffer (8, 16, 32 or 64).
    public var storageBits: Int
    /// How many times the element repeats (1 unless given with `X`).
    public var repeatCount: Int
    /// Right shift to apply before masking to `realBits`.
    public var shift: Int

    /// Bytes one element takes in a record.
    public var storageBytes: Int { storageBits / 8 * repeatCount }

    /// Parses the attribute text; `nil` when it is not in the documented format.
    public init?(_ text: String) {
        let t = text.filter { !$0.isWhitespace }
        let parts = t.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
        bigEndian = parts[0] == "be"
        var rest = Substring(parts[1])
        guard let sign = rest.first, sign == "s" || sign == "u" else { return nil }
        signed = sign == "s"
        rest = rest.dropFirst()
        let shiftSplit = rest.split(separator: ">", omittingEmptySubsequences: true)
        let body = shiftSplit.first ?? ""
        if rest.contains(">>") {
            guard shiftSplit.count == 2, let s = Int(shiftSplit[1]) else { return nil }
            shift = s
        } else {
            shift = 0
        }
        let sizes = body.split(separator: "/")
        guard sizes.count == 2, let real = Int(sizes[0]) else { return nil }
        let storage = sizes[1].split(separator: "X")
        guard let bits = Int(storage[0]) else { return nil }
        realBits = real
        storageBits = bits
        if storage.count == 2 {
            guard let r = Int(storage[1]), r > 0 else { return nil }
            repeatCount = r
        } else {
            repeatCount = 1
        }
        guard [8, 16, 32, 64].contains(storageBits), realBits > 0, realBits <= storageBits,
            shift >= 0, shift + realBits <= storageBits
        else { return nil }
    }

    public var description: String {
        "\(bigEndian ? "be" : "le"):\(signed ? "s" : "u")\(realBits)/\(storageBits)"
            + (repeatCount > 1 ? "X\(repeatCount)" : "") + ">>\(shift)"
    }

    /// The value stored at `offset` (first element if repeated): shifted, masked and sign-extended.
    public func decode(_ record: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        let bytes = storageBits / 8
        var raw: UInt64 = 0
        for i in 0..<bytes {
            let b = UInt64(record[offset + (bigEndian ? i : bytes - 1 - i)])
            raw = raw << 8 | b
        }
        raw >>= UInt64(shift)
        let mask: UInt64 = realBits == 64 ? .max : (1 << UInt64(realBits)) - 1
        raw &= mask
        if signed && realBits < 64 && raw & (1 << UInt64(realBits - 1)) != 0 {
            raw |= ~mask
        }
        return Int64(bitPattern: raw)
    }
}
