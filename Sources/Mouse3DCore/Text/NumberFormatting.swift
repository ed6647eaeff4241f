/// `value` with exactly `decimals` digits after the point, right-aligned in `width` characters.
/// ("nan" and "inf" for those; values beyond 1e15 fall back to Swift's own description.)
public func fixed(_ value: Double, _ decimals: Int, width: Int = 0) -> String {
    var bytes: [UInt8] = []
    appendFixed(value, decimals: decimals, width: width, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// Appends ``fixed(_:_:width:)``'s text to `bytes` (no string made).
public func appendFixed(_ value: Double, decimals: Int, width: Int = 0, to bytes: inout [UInt8]) {
    let start = bytes.count
    if !value.isFinite {
        if value.isNaN {
            appendLiteral("nan", to: &bytes)
        } else {
            appendLiteral(value < 0 ? "-inf" : "inf", to: &bytes)
        }
    } else if abs(value) >= 1e15 || abs(value) * pow10(min(max(decimals, 0), 15)) >= 1.8e19 {
        // Beyond what the digits below can hold (UInt64): Swift's own description.
        var text = "\(value)"
        text.withUTF8 { bytes.append(contentsOf: $0) }
    } else {
        let decimals = min(max(decimals, 0), 15)
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let units = UInt64((abs(value) * scale).rounded())
        let denominator = UInt64(scale)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        appendDecimal(units / denominator, to: &bytes)
        if decimals > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDecimal(units % denominator, minimumDigits: decimals, to: &bytes)
        }
    }
    let length = bytes.count - start
    if length < width {
        bytes.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: width - length), at: start)
    }
}

/// 10 to the `n`.
private func pow10(_ n: Int) -> Double {
    var p = 1.0
    for _ in 0..<n { p *= 10 }
    return p
}

/// Appends `value` in lowercase hexadecimal (no prefix).
func appendHexadecimal(_ value: UInt64, to bytes: inout [UInt8]) {
    var shift = max(0, (63 - value.leadingZeroBitCount) / 4 * 4)
    while shift >= 0 {
        let digit = UInt8((value >> UInt64(shift)) & 0xF)
        bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        shift -= 4
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
