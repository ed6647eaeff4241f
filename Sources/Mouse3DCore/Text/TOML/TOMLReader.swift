/// Reads TOML 1.0 (https://toml.io/en/v1.0.0) into a `TOMLTable` with the line of every key.
///
/// Written here rather than taken from a package: the packages that read TOML in Swift bring
/// Foundation (and ICU's data) into the static binary, which was 88 MB with one of them. It is
/// checked against the toml-test corpus's TOML 1.0 cases (Tests/Mouse3DCoreTests/TOMLReaderTests).
public enum TOMLReader {
    /// The document in `text`. Invalid UTF-8 is refused (a `String` built by decoding with
    /// replacement characters should be read with `parse(bytes:)` instead).
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(bytes: Array(text.utf8))
    }

    /// The document in `bytes` (UTF-8).
    public static func parse(bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput: break decoding
            case .error: throw TOMLError(line: line, message: "not UTF-8 text")
            }
        }
        var reader = TOMLParser(bytes)
        return try reader.document()
    }
}

/// A table while the document is read: mutable and shared, so a header can reopen it by path.
final class TOMLTableNode {
    /// How the table came to be, which decides what may add to it later.
    enum Origin {
        /// Named on the way to a deeper header (`a` in `[a.b]`): a `[a]` header may still define it once.
        case implied
        /// Defined by its own `[header]` or as an `[[array]]` element.
        case header
        /// Made by a dotted key (`a.b = 1` makes `a`): more dotted keys may add to it, headers may not define it.
        case dotted
    }

    enum Item {
        case value(TOMLValue, line: Int)
        case table(TOMLTableNode)
        case tables([TOMLTableNode], line: Int)
    }

    var origin: Origin
    /// Where it was defined (for an implied table, once its own header comes, that header's line).
    var line: Int
    /// How deep it sits below the document (an inline table: below the value it is in).
    let depth: Int
    var keys: [String] = []
    var items: [String: Item] = [:]

    init(origin: Origin, line: Int, depth: Int) {
        self.origin = origin
        self.line = line
        self.depth = depth
    }

    func add(_ key: String, _ item: Item) {
        if items[key] == nil { keys.append(key) }
        items[key] = item
    }

    var table: TOMLTable {
        var table = TOMLTable(line: line)
        for key in keys {
            switch items[key]! {
            case .value(let v, let line): table.set(key, v, line: line)
            case .table(let node): table.set(key, .table(node.table), line: node.line)
            case .tables(let nodes, let line): table.set(key, .array(nodes.map { .table($0.table) }), line: line)
            }
        }
        return table
    }
}

/// The reader's state: the bytes, where it is, which line, and the table keys go into.
struct TOMLParser {
    private let bytes: [UInt8]
    private var at = 0
    private var line = 1
    private let root: TOMLTableNode
    private var current: TOMLTableNode
    /// Arrays nested deeper than this are refused (the reader recurses).
    private let maximumDepth = 128
    private var depth = 0
    /// How deep the table that the value being read goes into sits (for inline tables' depth).
    private var valueBase = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        root = TOMLTableNode(origin: .header, line: 1, depth: 0)
        current = root
    }

    // MARK: Bytes

    private var atEnd: Bool { at >= bytes.count }
    private func peek(_ offset: Int = 0) -> UInt8? { at + offset < bytes.count ? bytes[at + offset] : nil }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where at < bytes.count {
            if bytes[at] == 0x0A { line += 1 }
            at += 1
        }
    }

    private func fail(_ message: String) -> TOMLError { TOMLError(line: line, message: message) }

    private func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "the end of the file" }
        switch byte {
        case 0x0A: return "the end of the line"
        case 0x0D: return "a carriage return"
        case 0x09: return "a tab"
        case 0x20: return "a space"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(TOMLError) {
        guard peek() == byte else { throw fail("expected \(what), found \(describe(peek()))") }
        advance()
    }

    private mutating func skipSpaces() {
        while let b = peek(), b == 0x20 || b == 0x09 { advance() }
    }

    /// A newline (LF or CRLF) here, consumed; false if there is none.
    private mutating func newline() throws(TOMLError) -> Bool {
        if peek() == 0x0A {
            advance()
            return true
        }
        if peek() == 0x0D {
            guard peek(1) == 0x0A else { throw fail("a carriage return must be followed by a line feed") }
            advance(2)
            return true
        }
        return false
    }

    /// A `#` comment up to (not including) the newline, if one starts here.
    private mutating func comment() throws(TOMLError) {
        guard peek() == 0x23 else { return }
        advance()
        while let b = peek(), b != 0x0A {
            if b == 0x0D, peek(1) == 0x0A { return }
            if isControl(b) { throw fail("\(describe(b)) is not allowed in a comment") }
            advance()
        }
    }

    /// Control characters TOML refuses outside strings' escapes (tab is allowed).
    private func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09) || b == 0x7F }

    /// After a key/value pair or a header: spaces, a comment, then a newline or the end.
    private mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        try comment()
        if atEnd { return }
        guard try newline() else { throw fail("expected the end of the line after \(what), found \(describe(peek()))") }
    }

    /// Spaces, newlines and comments, as arrays allow between values.
    private mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            try comment()
            if !(try newline()) { return }
        }
    }

    // MARK: Document

    mutating func document() throws(TOMLError) -> TOMLTable {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { advance(3) }
        while true {
            skipSpaces()
            if atEnd { break }
            if try newline() { continue }
            if peek() == 0x23 {
                try comment()
                continue
            }
            if peek() == 0x5B {
                try header()
            } else {
                try keyValue(into: current)
                try endOfLine(after: "a value")
            }
        }
        return root.table
    }

    private mutating func header() throws(TOMLError) {
        let headerLine = line
        advance()
        let isArray = peek() == 0x5B
        if isArray { advance() }
        skipSpaces()
        let path = try key()
        skipSpaces()
        try expect(0x5D, "']' to close the table header")
        if isArray { try expect(0x5D, "']]' to close the array-of-tables header") }
        let name = path.joined(separator: ".")
        var table = root
        for part in path.dropLast() {
            switch table.items[part] {
            case nil:
                let node = try node(.implied, line: headerLine, depth: table.depth + 1)
                table.add(part, .table(node))
                table = node
            case .table(let node):
                table = node
            case .tables(let nodes, _):
                table = nodes[nodes.count - 1]
            case .value(_, let line):
                throw fail("[\(name)]: '\(part)' is already a value (line \(line)), not a table")
            }
        }
        let last = path[path.count - 1]
        if isArray {
            let node = try node(.header, line: headerLine, depth: table.depth + 1)
            switch table.items[last] {
            case nil:
                table.add(last, .tables([node], line: headerLine))
            case .tables(_, let line):
                // Taken out and put back, so that the array is appended to in place, not copied.
                guard case .tables(var nodes, _) = table.items.removeValue(forKey: last) else { break }
                nodes.append(node)
                table.items[last] = .tables(nodes, line: line)
            case .table(let existing):
                throw fail("[[\(name)]]: '\(name)' is already a table (line \(existing.line)), not an array of tables")
            case .value(_, let line):
                throw fail("[[\(name)]]: '\(name)' is already a value (line \(line))")
            }
            current = node
        } else {
            switch table.items[last] {
            case nil:
                let node = try node(.header, line: headerLine, depth: table.depth + 1)
                table.add(last, .table(node))
                current = node
            case .table(let existing) where existing.origin == .implied:
                existing.origin = .header
                existing.line = headerLine
                current = existing
            case .table(let existing):
                throw fail("[\(name)] is defined twice (first on line \(existing.line))")
            case .tables(_, let line):
                throw fail("[\(name)]: '\(name)' is already an array of tables (line \(line))")
            case .value(_, let line):
                throw fail("[\(name)]: '\(name)' is already a value (line \(line))")
            }
        }
        try endOfLine(after: "the table header")
    }

    /// `key = value` into `table`, through dotted keys' tables.
    private mutating func keyValue(into table: TOMLTableNode) throws(TOMLError) {
        let keyLine = line
        let path = try key()
        skipSpaces()
        try expect(0x3D, "key = value: '=' after the key '\(path.joined(separator: "."))'")
        skipSpaces()
        // An inline table in the value sits below the dotted key's tables.
        let outerBase = valueBase
        valueBase = table.depth + path.count
        let value = try value()
        valueBase = outerBase
        var target = table
        for part in path.dropLast() {
            switch target.items[part] {
            case nil:
                let node = try node(.dotted, line: keyLine, depth: target.depth + 1)
                target.add(part, .table(node))
                target = node
            case .table(let node) where node.origin == .dotted:
                target = node
            case .table(let node):
                throw TOMLError(
                    line: keyLine,
                    message:
                        "'\(path.joined(separator: "."))': the table '\(part)' was defined on line \(node.line); a dotted key cannot add to it"
                )
            case .tables(_, let line):
                throw TOMLError(
                    line: keyLine,
                    message: "'\(path.joined(separator: "."))': '\(part)' is an array of tables (line \(line))")
            case .value(_, let line):
                throw TOMLError(
                    line: keyLine,
                    message: "'\(path.joined(separator: "."))': '\(part)' is already a value (line \(line))")
            }
        }
        let last = path[path.count - 1]
        if target.items[last] != nil {
            let first: Int
            switch target.items[last]! {
            case .value(_, let line), .tables(_, let line): first = line
            case .table(let node): first = node.line
            }
            throw TOMLError(
                line: keyLine, message: "'\(path.joined(separator: "."))' given twice (first on line \(first))")
        }
        target.add(last, .value(value, line: keyLine))
    }

    /// A new table `depth` levels below the document; refused past ``maximumDepth`` (reading and
    /// converting recurse once per level).
    private func node(_ origin: TOMLTableNode.Origin, line: Int, depth: Int) throws(TOMLError) -> TOMLTableNode {
        guard depth <= maximumDepth else { throw fail("tables nested deeper than \(maximumDepth)") }
        return TOMLTableNode(origin: origin, line: line, depth: depth)
    }

    // MARK: Keys

    /// A key: simple keys joined by dots, with spaces allowed around the dots.
    private mutating func key() throws(TOMLError) -> [String] {
        var parts = [try simpleKey()]
        while true {
            let mark = (at, line)
            skipSpaces()
            guard peek() == 0x2E else {
                (at, line) = mark
                return parts
            }
            advance()
            skipSpaces()
            parts.append(try simpleKey())
        }
    }

    private mutating func simpleKey() throws(TOMLError) -> String {
        switch peek() {
        case 0x22:
            if peek(1) == 0x22, peek(2) == 0x22 { throw fail("a key cannot be a multi-line string") }
            return try basicString()
        case 0x27:
            if peek(1) == 0x27, peek(2) == 0x27 { throw fail("a key cannot be a multi-line string") }
            return try literalString()
        default:
            let start = at
            while let b = peek(), isBareKey(b) { advance() }
            guard at > start else {
                throw fail(
                    "expected a key (letters, digits, '_' and '-', or a quoted string), found \(describe(peek()))")
            }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }
    }

    private func isBareKey(_ b: UInt8) -> Bool {
        (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || b == 0x5F || b == 0x2D
    }

    // MARK: Values

    private mutating func value() throws(TOMLError) -> TOMLValue {
        switch peek() {
        case 0x22:
            return .string(peek(1) == 0x22 && peek(2) == 0x22 ? try multiLineString(0x22) : try basicString())
        case 0x27:
            return .string(peek(1) == 0x27 && peek(2) == 0x27 ? try multiLineString(0x27) : try literalString())
        case 0x5B:
            return try array()
        case 0x7B:
            return try inlineTable()
        case 0x74:
            try word("true")
            return .boolean(true)
        case 0x66:
            try word("false")
            return .boolean(false)
        case let b? where b == 0x2B || b == 0x2D || b == 0x69 || b == 0x6E || (0x30...0x39).contains(b):
            return try numberOrDate()
        default:
            throw fail("expected a value, found \(describe(peek()))")
        }
    }

    private mutating func word(_ text: String) throws(TOMLError) {
        let word = Array(text.utf8)
        guard bytes.count - at >= word.count, Array(bytes[at..<at + word.count]) == word else {
            throw fail(
                "expected a value (true, false, a number, a \"string\", [array] or {table}), found \(describe(peek()))")
        }
        advance(word.count)
        if let b = peek(), isBareKey(b) { throw fail("expected a value, found '\(text)' followed by \(describe(b))") }
    }

    private mutating func array() throws(TOMLError) -> TOMLValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maximumDepth else { throw fail("arrays and tables nested deeper than \(maximumDepth)") }
        advance()
        var values: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek() == 0x5D {
                advance()
                return .array(values)
            }
            values.append(try value())
            try skipBlank()
            if peek() == 0x2C {
                advance()
            } else if peek() == 0x5D {
                advance()
                return .array(values)
            } else {
                throw fail("expected ',' or ']' in the array, found \(describe(peek()))")
            }
        }
    }

    private mutating func inlineTable() throws(TOMLError) -> TOMLValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maximumDepth else { throw fail("arrays and tables nested deeper than \(maximumDepth)") }
        let node = try node(.header, line: line, depth: valueBase + depth)
        advance()
        skipSpaces()
        if peek() == 0x7D {
            advance()
            return .table(node.table)
        }
        while true {
            skipSpaces()
            try keyValue(into: node)
            skipSpaces()
            if peek() == 0x2C {
                advance()
                skipSpaces()
                if peek() == 0x7D { throw fail("TOML 1.0 allows no ',' after the last entry of an inline table") }
            } else if peek() == 0x7D {
                advance()
                return .table(node.table)
            } else {
                throw fail(
                    "expected ',' or '}' in the inline table (which must fit on one line), found \(describe(peek()))")
            }
        }
    }

    // MARK: Strings

    private mutating func basicString() throws(TOMLError) -> String {
        advance()
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw fail("unterminated string: no closing '\"'") }
            switch b {
            case 0x22:
                advance()
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                try escape(into: &out)
            case 0x0A, 0x0D:
                throw fail("unterminated string: no closing '\"' on its line (use \"\"\" for several lines)")
            default:
                if isControl(b) { throw fail("\(describe(b)) must be escaped in a string") }
                out.append(b)
                advance()
            }
        }
    }

    /// A `"""` string (escapes, and a backslash at a line's end joining it to the next text) or a
    /// `'''` one (neither): a newline just after the opening is dropped; up to two quotes may end
    /// the text before the closing three.
    private mutating func multiLineString(_ quote: UInt8) throws(TOMLError) -> String {
        let basic = quote == 0x22
        let delimiter = basic ? "'\"\"\"'" : "\"'''\""
        advance(3)
        _ = try newline()
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw fail("the string has no closing \(delimiter)") }
            switch b {
            case quote:
                var quotes = 0
                while peek() == quote {
                    quotes += 1
                    advance()
                }
                if quotes >= 3 {
                    guard quotes <= 5 else { throw fail("too many quotes before the closing \(delimiter)") }
                    out.append(contentsOf: [UInt8](repeating: quote, count: quotes - 3))
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(contentsOf: [UInt8](repeating: quote, count: quotes))
            case 0x5C where basic:
                // A backslash at the end of a line joins it to the next non-blank text.
                var ahead = 1
                while let c = peek(ahead), c == 0x20 || c == 0x09 { ahead += 1 }
                if peek(ahead) == 0x0A || (peek(ahead) == 0x0D && peek(ahead + 1) == 0x0A) {
                    advance(ahead)
                    while true {
                        skipSpaces()
                        if !(try newline()) { break }
                    }
                } else {
                    try escape(into: &out)
                }
            case 0x0A:
                out.append(b)
                advance()
            case 0x0D:
                _ = try newline()
                out.append(0x0A)
            default:
                if isControl(b) {
                    throw fail(
                        "\(describe(b)) "
                            + (basic ? "must be escaped in a string" : "is not allowed in a literal string"))
                }
                out.append(b)
                advance()
            }
        }
    }

    private mutating func literalString() throws(TOMLError) -> String {
        advance()
        let start = at
        while true {
            guard let b = peek() else { throw fail("the string has no closing \"'\"") }
            if b == 0x27 { break }
            if b == 0x0A || b == 0x0D {
                throw fail("the string has no closing \"'\" on its line (use ''' for several lines)")
            }
            if isControl(b) { throw fail("\(describe(b)) is not allowed in a literal string") }
            advance()
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        advance()
        return text
    }

    private mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        advance()
        guard let b = peek() else { throw fail("the string ends inside an escape") }
        advance()
        switch b {
        case 0x62: out.append(0x08)
        case 0x74: out.append(0x09)
        case 0x6E: out.append(0x0A)
        case 0x66: out.append(0x0C)
        case 0x72: out.append(0x0D)
        case 0x22: out.append(0x22)
        case 0x5C: out.append(0x5C)
        case 0x75, 0x55:
            let count = b == 0x75 ? 4 : 8
            var scalar: UInt32 = 0
            for _ in 0..<count {
                guard let h = peek(), let digit = hexDigit(h) else {
                    throw fail("\\\(b == 0x75 ? "u" : "U") needs \(count) hex digits")
                }
                scalar = scalar << 4 | UInt32(digit)
                advance()
            }
            guard let s = Unicode.Scalar(scalar) else {
                throw fail(
                    "\\\(b == 0x75 ? "u" : "U")\(String(scalar, radix: 16, uppercase: true)) is not a Unicode scalar value"
                )
            }
            out.append(contentsOf: Array(String(Character(s)).utf8))
        default:
            throw fail(
                "\\\(describe(b)) is not an escape TOML 1.0 knows (\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
        }
    }

    private func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    // MARK: Numbers and dates

    private mutating func numberOrDate() throws(TOMLError) -> TOMLValue {
        let start = at
        while let b = peek(), isBareKey(b) || b == 0x2B || b == 0x2E || b == 0x3A { advance() }
        // A date-time may have a space between date and time: take it when a time follows.
        if at - start == 10, peek() == 0x20, let h = peek(1), let m = peek(2), (0x30...0x39).contains(h),
            (0x30...0x39).contains(m), peek(3) == 0x3A
        {
            advance()
            while let b = peek(), isBareKey(b) || b == 0x2B || b == 0x2E || b == 0x3A { advance() }
        }
        let token = Array(bytes[start..<at])
        if token.count >= 5, token[4] == 0x2D, token[0...3].allSatisfy({ (0x30...0x39).contains($0) }) {
            return .dateTime(try dateTime(token))
        }
        if token.count >= 3, token[2] == 0x3A, token[0...1].allSatisfy({ (0x30...0x39).contains($0) }) {
            return .dateTime(TOMLDateTime(kind: .localTime, text: try time(token[...])))
        }
        return try number(token)
    }

    private func number(_ token: [UInt8]) throws(TOMLError) -> TOMLValue {
        let text = String(decoding: token, as: UTF8.self)
        let bad = fail("'\(text)' is not a TOML number")
        var body = token[...]
        var negative = false
        let signed = body.first == 0x2B || body.first == 0x2D
        if signed {
            negative = body.first == 0x2D
            body = body.dropFirst()
        }
        switch Array(body) {
        case Array("inf".utf8): return .float(negative ? -.infinity : .infinity)
        case Array("nan".utf8): return .float(.nan)
        default: break
        }
        if body.count > 2, body.first == 0x30, let radix = [0x78: 16, 0x6F: 8, 0x62: 2][body[body.startIndex + 1]] {
            guard !signed, let digits = separatedDigits(body.dropFirst(2), radix: radix),
                let value = Int64(String(decoding: digits, as: UTF8.self), radix: radix)
            else { throw bad }
            return .integer(value)
        }
        // Decimal: integer part, then an optional fraction and exponent.
        let integerEnd = body.firstIndex { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 } ?? body.endIndex
        guard let integerDigits = separatedDigits(body[..<integerEnd], radix: 10) else { throw bad }
        if integerDigits.count > 1, integerDigits.first == 0x30 {
            throw fail("'\(text)': leading zeros are not allowed")
        }
        var rest = body[integerEnd...]
        if rest.isEmpty {
            guard let value = Int64((negative ? "-" : "") + String(decoding: integerDigits, as: UTF8.self)) else {
                throw fail("'\(text)' does not fit in a 64-bit integer")
            }
            return .integer(value)
        }
        var clean = integerDigits
        if rest.first == 0x2E {
            rest = rest.dropFirst()
            let fractionEnd = rest.firstIndex { $0 == 0x65 || $0 == 0x45 } ?? rest.endIndex
            guard let fraction = separatedDigits(rest[..<fractionEnd], radix: 10) else { throw bad }
            clean += [0x2E] + fraction
            rest = rest[fractionEnd...]
        }
        if let e = rest.first {
            rest = rest.dropFirst()
            var exponentSign: [UInt8] = []
            if let s = rest.first, s == 0x2B || s == 0x2D {
                exponentSign = [s]
                rest = rest.dropFirst()
            }
            guard let exponent = separatedDigits(rest, radix: 10) else { throw bad }
            clean += [e] + exponentSign + exponent
        }
        guard let value = Double(String(decoding: clean, as: UTF8.self)) else { throw bad }
        return .float(negative ? -value : value)
    }

    /// The digits of `text` without its underscores, each underscore between two digits; nil otherwise.
    private func separatedDigits(_ text: ArraySlice<UInt8>, radix: Int) -> [UInt8]? {
        var digits: [UInt8] = []
        var previousDigit = false
        for b in text {
            if b == 0x5F {
                guard previousDigit else { return nil }
                previousDigit = false
                continue
            }
            guard let d = hexDigit(b), Int(d) < radix else { return nil }
            digits.append(b)
            previousDigit = true
        }
        return previousDigit ? digits : nil
    }

    private func dateTime(_ token: [UInt8]) throws(TOMLError) -> TOMLDateTime {
        let text = String(decoding: token, as: UTF8.self)
        let bad = fail("'\(text)' is not a TOML date or date-time (1979-05-27, 1979-05-27T07:32:00Z)")
        guard token.count >= 10, let year = digits(token, 0, 4), token[4] == 0x2D, let month = digits(token, 5, 2),
            token[7] == 0x2D, let day = digits(token, 8, 2)
        else { throw bad }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...days[month - 1]).contains(day) else {
            throw fail("'\(text)': no such date")
        }
        let date = String(decoding: token[0..<10], as: UTF8.self)
        if token.count == 10 { return TOMLDateTime(kind: .localDate, text: date) }
        guard [0x54, 0x74, 0x20].contains(token[10]) else { throw bad }
        var rest = token[11...]
        var offset = ""
        if let last = rest.last, last == 0x5A || last == 0x7A {
            offset = "Z"
            rest = rest.dropLast()
        } else if rest.count > 6, [0x2B, 0x2D].contains(rest[rest.endIndex - 6]) {
            let zone = Array(rest.suffix(6))
            guard let hours = digits(zone, 1, 2), zone[3] == 0x3A, let minutes = digits(zone, 4, 2), hours < 24,
                minutes < 60
            else {
                throw fail("'\(text)': the offset must be Z or ±hh:mm")
            }
            offset = String(decoding: zone, as: UTF8.self)
            rest = rest.dropLast(6)
        }
        let time = try time(rest)
        return TOMLDateTime(kind: offset.isEmpty ? .localDateTime : .offsetDateTime, text: date + "T" + time + offset)
    }

    /// `hh:mm:ss` with an optional fraction, checked.
    private func time(_ token: ArraySlice<UInt8>) throws(TOMLError) -> String {
        let t = Array(token)
        let text = String(decoding: t, as: UTF8.self)
        guard t.count >= 8, let hour = digits(t, 0, 2), t[2] == 0x3A, let minute = digits(t, 3, 2), t[5] == 0x3A,
            let second = digits(t, 6, 2)
        else { throw fail("'\(text)' is not a TOML time (07:32:00, seconds required)") }
        guard hour < 24, minute < 60, second <= 60 else { throw fail("'\(text)': no such time") }
        if t.count > 8 {
            guard t[8] == 0x2E, t.count > 9, t[9...].allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw fail("'\(text)' is not a TOML time (07:32:00.999)")
            }
        }
        return text
    }

    private func digits(_ t: [UInt8], _ from: Int, _ count: Int) -> Int? {
        guard from + count <= t.count else { return nil }
        var value = 0
        for b in t[from..<from + count] {
            guard (0x30...0x39).contains(b) else { return nil }
            value = value * 10 + Int(b - 0x30)
        }
        return value
    }
}
