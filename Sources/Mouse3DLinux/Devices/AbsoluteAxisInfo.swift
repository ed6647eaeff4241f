import CEvdev
import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// An absolute axis's description, as `struct input_absinfo`.
public struct AbsoluteAxisInfo: Sendable, Equatable {
    /// The current value.
    public var value: Int
    /// The range.
    public var minimum: Int, maximum: Int
    /// Noise filter and dead zone.
    public var fuzz: Int, flat: Int
    /// Units per unit of measure (per g, per degree/s, per mm ...), 0 if unknown.
    public var resolution: Int

    /// `raw` as -1...1 over the range (the minimum -1, the maximum 1; a hat's -1, 0, 1 stay so),
    /// clamped; 0 for an empty range.
    public func normalized(_ raw: Int) -> Float {
        guard maximum > minimum else { return 0 }
        let v = (Double(min(max(raw, minimum), maximum) - minimum) / Double(maximum - minimum)) * 2 - 1
        return Float(v)
    }

    /// `raw` as ``normalized(_:)``, a centred axis's middle exactly 0: a range with an even number
    /// of values (a DualSense stick's 0–255) has no middle value, and its two middle values, half a
    /// count either side, are where such a stick rests (0x80 for a DualSense's), so both read 0.
    public func normalizedCentred(_ raw: Int) -> Float {
        let middle = Double(minimum) + Double(maximum - minimum) / 2
        return abs(Double(raw) - middle) <= 0.5 ? 0 : normalized(raw)
    }

    /// Creates a description.
    public init(value: Int, minimum: Int, maximum: Int, fuzz: Int, flat: Int, resolution: Int) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}
