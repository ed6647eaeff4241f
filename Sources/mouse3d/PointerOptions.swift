import ArgumentParser
import Mouse3DCore

/// Gyro-mouse tuning for `receive --uinput pointer`.
struct PointerOptions: ParsableArguments {
    @Option(help: "Pointer counts per degree of turn.")
    var sensitivity: Double = PointerMapping().countsPerDegree

    @Option(help: "Below this speed (°/s) motion is scaled down in proportion, to hide tremor (0: off).")
    var tightening: Double = 0

    @Option(help: "Below this speed (°/s) motion is averaged over 0.1 s; above twice it, passed through (0: off).")
    var smoothing: Double = 0

    @Option(help: "Acceleration as LOW:HIGH:FACTOR: sensitivity rises from 1x at LOW °/s to FACTORx at HIGH °/s.")
    var acceleration: String?

    @Flag(help: "Mirror horizontal motion.")
    var invertX = false

    @Flag(help: "Mirror vertical motion.")
    var invertY = false

    @Flag(help: "Exchange the axes.")
    var swapAxes = false

    func validate() throws {
        guard sensitivity.isFinite, sensitivity > 0, sensitivity <= 10_000 else {
            throw ValidationError("--sensitivity must be between 0 and 10000 counts per degree.")
        }
        guard tightening >= 0, smoothing >= 0, tightening.isFinite, smoothing.isFinite else {
            throw ValidationError("--tightening and --smoothing must be 0 (off) or positive speeds in °/s.")
        }
        if acceleration != nil && curve == nil {
            throw ValidationError("--acceleration must be LOW:HIGH:FACTOR with 0 <= LOW < HIGH and FACTOR > 0, e.g. 20:200:3.")
        }
    }

    var curve: (low: Double, high: Double, factor: Double)? {
        guard let parts = acceleration?.split(separator: ":").compactMap({ Double($0) }), parts.count == 3,
              parts[0] >= 0, parts[1] > parts[0], parts[2] > 0 else { return nil }
        return (parts[0], parts[1], parts[2])
    }

    var mapping: PointerMapping {
        var m = PointerMapping()
        m.countsPerDegree = sensitivity
        m.tighteningDegreesPerSecond = tightening
        m.smoothingDegreesPerSecond = smoothing
        if let curve {
            m.accelerationLowDegreesPerSecond = curve.low
            m.accelerationHighDegreesPerSecond = curve.high
            m.accelerationFactor = curve.factor
        }
        m.invertX = invertX
        m.invertY = invertY
        m.swapAxes = swapAxes
        return m
    }
}
