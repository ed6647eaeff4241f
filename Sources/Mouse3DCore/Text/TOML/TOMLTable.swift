/// A TOML table: keys in the order they were first written, each with its value and the line it
/// was written on (for `[[array]]` elements and `[header]` tables, the header's line).
public struct TOMLTable: Sendable, Equatable {
    /// A key, its value and its line.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: TOMLValue
        public var line: Int
    }

    /// The entries, in the order their keys first appeared.
    public private(set) var entries: [Entry] = []
    private var index: [String: Int] = [:]
    /// The line the table began on (its header, its inline brace, or 1 for the document).
    public var line: Int

    /// An empty table.
    public init(line: Int = 1) { self.line = line }

    /// The keys, in order.
    public var keys: [String] { entries.map(\.key) }

    /// The value at `key`.
    public subscript(key: String) -> TOMLValue? { index[key].map { entries[$0].value } }

    /// The line `key` was written on.
    public func line(of key: String) -> Int? { index[key].map { entries[$0].line } }

    /// Adds or replaces `key`.
    public mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if let i = index[key] {
            entries[i] = Entry(key: key, value: value, line: line)
        } else {
            index[key] = entries.count
            entries.append(Entry(key: key, value: value, line: line))
        }
    }

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.entries.count == b.entries.count && a.entries.allSatisfy { b[$0.key] == $0.value }
    }
}
