import RealModule

/// Keeps a held absolute deflection flowing: the kernel drops an absolute event whose value equals
/// the axis's current value, so a repeated non-zero value is sent alternately as itself and one
/// count nearer zero; a return to 0 is a change and is sent once. (Relative axes cannot carry a
/// return to rest at all: the kernel drops zero relative events.)
public struct HeldValueDither: Sendable {
    private var last: [Int32]

    /// A dither for `axes` axes, all at 0.
    public init(axes: Int) { last = [Int32](repeating: 0, count: axes) }

    /// The value to write on `axis` for deflection `value`, or `nil` when nothing needs writing.
    public mutating func next(axis: Int, value: Int32) -> Int32? {
        let out: Int32?
        if value == 0 {
            out = last[axis] == 0 ? nil : 0
        } else if value != last[axis] {
            out = value
        } else {
            out = value > 0 ? value - 1 : value + 1
        }
        if let out { last[axis] = out }
        return out
    }
}
