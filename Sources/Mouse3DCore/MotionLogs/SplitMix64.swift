import RealModule

/// A small, fast, seedable generator (SplitMix64) for reproducible noise.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64

    /// A generator that always produces the same sequence for the same seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal deviate (Box–Muller).
    public mutating func nextGaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * .pi * u2)
    }

    /// Three independent standard normal deviates.
    public mutating func nextGaussian3() -> SIMD3<Double> {
        SIMD3(nextGaussian(), nextGaussian(), nextGaussian())
    }
}
