import Mouse3DCore
import Mouse3DNetwork

/// The line `run` starts with: what it reads, where attitudes go, at what pace, and the calibration.
public enum StartLine {
    /// "running evdev '…' → virtual pointer and the live view; updates at 60 Hz; gyroscope …".
    public static func running(
        _ opened: OpenedSource, outputs: [String], dsu: DSUServer?, rate: Double?, calibration: String
    ) -> String {
        let named = outputs + (dsu.map { ["DSU at \($0.localAddress)"] } ?? [])
        let listed =
            named.count <= 1 ? named.joined() : named.dropLast().joined(separator: ", ") + " and " + named.last!
        let pacing =
            rate.map { r in
                "; " + (dsu == nil ? "updates" : "updates other than DSU's (every sample)")
                    + " at \(fixed(r, r < 10 ? 1 : 0)) Hz"
            } ?? ""
        return "running \(opened.summary) → \(listed)\(pacing); \(calibration)"
    }
}
