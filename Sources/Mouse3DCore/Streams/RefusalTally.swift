/// How many of each refusal a server counted (the view's, the phone page's, the DSU server's), by
/// reasons that print as their raw values, in the order the reasons are declared.
public struct RefusalTally<Reason: RawRepresentable & CaseIterable & Hashable & Sendable>: Sendable, Equatable
where Reason.RawValue == String {
    /// The counts, by reason; a reason never counted is absent.
    public private(set) var counts: [Reason: Int] = [:]

    /// Nothing refused yet.
    public init() {}

    /// The count of `reason`, nil when it was never counted.
    public subscript(reason: Reason) -> Int? { counts[reason] }

    /// Counts one `reason`.
    public mutating func add(_ reason: Reason) { counts[reason, default: 0] += 1 }

    /// Whether nothing was refused.
    public var isEmpty: Bool { counts.isEmpty }

    /// `bad-token 1, too-slow 2`: the counted reasons in their declared order, or nil when none.
    public var listing: String? {
        let parts = Reason.allCases.compactMap { r in counts[r].map { "\(r.rawValue) \($0)" } }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
