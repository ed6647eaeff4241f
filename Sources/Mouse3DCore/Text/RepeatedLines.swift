/// Lines for the user that may come again and again (a recenter pressed, a refused phone): the first
/// of a kind is said; the same kind again within the window is only counted (whatever its details,
/// such as a peer's address: a flood from many addresses is one kind), and the next one said after
/// the window carries that count. Whatever arrives, the lines said stay at about one per kind per window,
/// and what is held for counting stays bounded.
public struct RepeatedLines: Sendable {
    /// How long after saying a line the same line is only counted.
    public let windowNanoseconds: UInt64
    /// Kinds of line remembered at most (older ones are dropped first).
    public static let maximumKinds = 64
    var recent: [String: (said: UInt64, held: Int)] = [:]

    public init(windowNanoseconds: UInt64 = 5_000_000_000) { self.windowNanoseconds = windowNanoseconds }

    /// The text to say for `line` (of `kind`: the line itself when not given) at `now`, or nil when
    /// it is only counted.
    public mutating func say(_ line: String, kind: String? = nil, now: UInt64) -> String? {
        let key = kind ?? line
        if let entry = recent[key], now < entry.said + windowNanoseconds {
            recent[key] = (entry.said, entry.held + 1)
            return nil
        }
        let held = recent[key]?.held ?? 0
        if recent[key] == nil && recent.count >= Self.maximumKinds {
            let cutoff = now > windowNanoseconds ? now - windowNanoseconds : 0
            recent = recent.filter { $0.value.said >= cutoff }
            if recent.count >= Self.maximumKinds, let oldest = recent.min(by: { $0.value.said < $1.value.said }) {
                recent[oldest.key] = nil
            }
        }
        recent[key] = (now, 0)
        return held == 0 ? line : "\(line) (and \(held) more like it before)"
    }
}
