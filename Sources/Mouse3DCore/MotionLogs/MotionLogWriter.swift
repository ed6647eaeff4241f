/// Writes the CSV motion log format that ``MotionLogParser`` reads.
public enum MotionLogWriter {
    /// The header line, without truth columns.
    public static let header = "t,gx,gy,gz,ax,ay,az"

    /// The header line saying the samples' frame (``MotionLog/frame``), if known.
    public static func header(frame: String?) -> String { header + (frame.map { ",frame:" + $0 } ?? "") }

    /// One row for `sample`, with the truth columns appended when given. Numbers round-trip exactly.
    public static func row(_ sample: MotionSample, truth: Quaternion? = nil) -> String {
        let g = sample.angularVelocityRadiansPerSecond
        let a = sample.specificForceMetersPerSecondSquared
        var row = "\(formatSeconds(sample.timestampNanoseconds)),\(g.x),\(g.y),\(g.z),\(a.x),\(a.y),\(a.z)"
        if let q = truth { row += ",\(q.w),\(q.x),\(q.y),\(q.z)" }
        return row
    }

    /// A nanosecond timestamp as decimal seconds, exactly (no floating-point rounding).
    public static func formatSeconds(_ nanoseconds: Int64) -> String {
        let negative = nanoseconds < 0
        let magnitude = nanoseconds.magnitude
        let whole = magnitude / 1_000_000_000
        let fraction = magnitude % 1_000_000_000
        var digits = String(fraction)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.count > 1 && digits.hasSuffix("0") { digits.removeLast() }
        return (negative ? "-" : "") + "\(whole).\(digits)"
    }
}
