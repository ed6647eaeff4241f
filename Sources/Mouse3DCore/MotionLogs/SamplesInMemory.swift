/// Samples held in memory, as one batch per pass.
public struct SamplesInMemory: MotionSampleBatches, Sendable {
    private let samples: [MotionSample]
    private var given = false

    public init(_ samples: [MotionSample]) { self.samples = samples }

    public mutating func next() -> [MotionSample] {
        defer { given = true }
        return given ? [] : samples
    }

    public mutating func restart() { given = false }
}
