/// How many of each ``Refusal``: a fixed table (no hashing, no allocation per count).
public struct RefusalCounts: Sendable, Equatable {
    private var counts = [UInt64](repeating: 0, count: Refusal.allCases.count)
    /// Whether a count is above zero, kept as counts change: a receiver asks at every wake-up (its
    /// refusal reports' deadline), where scanning the table cost about 120 instructions.
    private var anyCounted = false

    /// No refusals yet.
    public init() {}

    /// The count of `refusal`.
    public subscript(refusal: Refusal) -> UInt64 {
        get { counts[refusal.rawValue] }
        set {
            counts[refusal.rawValue] = newValue
            anyCounted = counts.contains { $0 != 0 }
        }
    }

    /// Counts one `refusal`.
    public mutating func add(_ refusal: Refusal, _ count: UInt64 = 1) {
        counts[refusal.rawValue] &+= count
        if count != 0 { anyCounted = true }
    }

    /// Every refusal counted.
    public var total: UInt64 { counts.reduce(0, &+) }

    /// Whether nothing was refused.
    public var isEmpty: Bool { !anyCounted }

    /// The refusals counted at least once, by label.
    public var counted: [(refusal: Refusal, count: UInt64)] {
        Refusal.allCases.filter { counts[$0.rawValue] > 0 }.sorted { $0.description < $1.description }.map {
            ($0, counts[$0.rawValue])
        }
    }

    /// `bad tag 3, replayed 1`: the counted refusals, by label.
    public var summary: String { counted.map { "\($0.refusal) \($0.count)" }.joined(separator: ", ") }
}
