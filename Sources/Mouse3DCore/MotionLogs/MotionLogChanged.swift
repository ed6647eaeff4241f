/// A log read again for another pass that no longer matches what was read first.
public struct MotionLogChanged: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "the log changed while it was played (its timestamps moved)" }
}
