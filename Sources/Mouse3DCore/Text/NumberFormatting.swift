/// `value` with exactly `decimals` digits after the point, right-aligned in `width` characters.
/// ("nan" and "inf" for those; values beyond 1e15 fall back to Swift's own description.)
public func fixed(_ value: Double, _ decimals: Int, width: Int = 0) -> String {
    var bytes: [UInt8] = []
    appendFixed(value, decimals: decimals, width: width, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// Appends ``fixed(_:_:width:)``'s text to `bytes` (no string made): ``ASCIIWriter/fixed(_:decimals:width:)``
/// writes what its digits can hold; nan, the infinities and values beyond are appended here.
public func appendFixed(_ value: Double, decimals: Int, width: Int = 0, to bytes: inout [UInt8]) {
    let decimals = min(max(decimals, 0), 15)
    if ASCIIWriter.holds(value, decimals: decimals) {
        // A sign, at most 20 digits, the point and 15 decimals, after the padding.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40 + max(0, width)) { buffer in
            let start = buffer.baseAddress!
            var w = ASCIIWriter(start)
            w.fixed(value, decimals: decimals, width: width)
            bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: w.position - start))
        }
        return
    }
    let start = bytes.count
    if value.isNaN {
        appendLiteral("nan", to: &bytes)
    } else if !value.isFinite {
        appendLiteral(value < 0 ? "-inf" : "inf", to: &bytes)
    } else {
        // Beyond what the digits can hold (UInt64): Swift's own description.
        var text = "\(value)"
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
    let length = bytes.count - start
    if length < width {
        bytes.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: width - length), at: start)
    }
}

/// Appends `value` in lowercase hexadecimal (no prefix).
func appendHexadecimal(_ value: UInt64, to bytes: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { buffer in
        let start = buffer.baseAddress!
        var w = ASCIIWriter(start)
        w.hexadecimal(value)
        bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: w.position - start))
    }
}

extension String {
    /// Left-padded with `pad` to at least `width` characters.
    public func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }

    /// Right-padded with spaces to at least `width` characters.
    public func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
