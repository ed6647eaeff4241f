/// The small JSON the view sends, written by hand (numbers round-trip; strings escaped).
public enum ViewJSON {
    /// One update message: every stream's state, the refusals so far, and whether the source ended.
    public static func update(
        _ streams: [ViewStreamState], refusals: [WebAccessPolicy.Refusal: Int], ended: Bool = false
    ) -> String {
        let counts = WebAccessPolicy.Refusal.allCases.map { "\"\($0.rawValue)\":\(refusals[$0] ?? 0)" }.joined(
            separator: ",")
        return "{\"streams\":[" + streams.map(\.json).joined(separator: ",") + "],\"refused\":{" + counts
            + "},\"edges_us\":["
            + ViewHistogram.edgesMicroseconds.map(String.init).joined(separator: ",") + "]"
            + (ended ? ",\"ended\":true}" : "}")
    }
}
