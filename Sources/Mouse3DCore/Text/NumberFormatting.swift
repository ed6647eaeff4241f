/// `value` with exactly `decimals` digits after the point, right-aligned in `width` characters.
/// ("nan" and "inf" for those; values beyond 1e15 fall back to Swift's own description.)
public func fixed(_ value: Double, _ decimals: Int, width: Int = 0) -> String {
    var text: String
    if !value.isFinite {
        text = value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")
    } else if abs(value) >= 1e15 {
        text = "\(value)"
    } else {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let units = UInt64(scaled)
        let denominator = UInt64(scale)
        let whole = units / denominator
        let fraction = units % denominator
        text = (value < 0 && units != 0 ? "-" : "") + "\(whole)"
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
    }
    return text.leftPadded(to: width, with: " ")
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
