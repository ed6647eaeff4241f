/// The small text format of mouse3d's key files (identity and paired peers): `# comment` lines and
/// `key = "string"` or `key = 123` lines, a subset of TOML that mouse3d writes itself and reads back
/// strictly, with errors naming the file and line.
public enum KeyValueText {
    /// A value.
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
    }

    /// A file that does not follow the format, or lacks a key.
    public struct ParseError: Error, Sendable, CustomStringConvertible, Equatable {
        /// The file.
        public var file: String
        /// The line (1-based), 0 for the whole file.
        public var line: Int
        /// What is wrong.
        public var message: String
        public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }

        /// Creates an error.
        public init(file: String, line: Int, message: String) {
            self.file = file
            self.line = line
            self.message = message
        }
    }

    /// The keys of a parsed file, with their lines.
    public struct Document: Sendable {
        /// The file name, for errors.
        public let file: String
        /// Values and the lines they were on.
        public private(set) var entries: [String: (value: Value, line: Int)] = [:]

        init(file: String) { self.file = file }

        mutating func set(_ key: String, _ value: Value, line: Int) { entries[key] = (value, line) }

        /// The string at `key`, or an error naming the file.
        public func string(_ key: String) throws(ParseError) -> String {
            guard let entry = entries[key] else {
                throw ParseError(file: file, line: 0, message: "missing key '\(key)'")
            }
            guard case .string(let s) = entry.value else {
                throw ParseError(file: file, line: entry.line, message: "'\(key)' must be a quoted string")
            }
            return s
        }

        /// The integer at `key` (or `fallback` when missing), or an error naming the file and line.
        public func integer(_ key: String, default fallback: Int64? = nil) throws(ParseError) -> Int64 {
            guard let entry = entries[key] else {
                if let fallback { return fallback }
                throw ParseError(file: file, line: 0, message: "missing key '\(key)'")
            }
            guard case .integer(let i) = entry.value else {
                throw ParseError(file: file, line: entry.line, message: "'\(key)' must be a whole number")
            }
            return i
        }

        /// The bytes of the hex string at `key`, which must be `count` bytes long.
        public func hex(_ key: String, count: Int) throws(ParseError) -> [UInt8] {
            let text = try string(key)
            guard let bytes = Hexadecimal.decode(text), bytes.count == count else {
                throw ParseError(
                    file: file, line: entries[key]?.line ?? 0, message: "'\(key)' must be \(count * 2) hex digits")
            }
            return bytes
        }
    }

    /// Parses `text` read from `file`: TOML (read by `TOMLReader`) holding only top-level keys of
    /// lower-case letters, digits and `_`, each a string or a whole number.
    public static func parse(_ text: String, file: String) throws(ParseError) -> Document {
        let table: TOMLTable
        do {
            table = try TOMLReader.parse(text)
        } catch {
            throw ParseError(
                file: file, line: error.line,
                message: error.message
                    + " (a key file holds key = value lines, each value a quoted string or a whole number)")
        }
        var document = Document(file: file)
        for entry in table.entries {
            let key = entry.key
            guard !key.isEmpty,
                key.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) })
            else {
                throw ParseError(
                    file: file, line: entry.line, message: "bad key '\(key)' (lower-case letters, digits and _)")
            }
            switch entry.value {
            case .string(let s): document.set(key, .string(s), line: entry.line)
            case .integer(let i): document.set(key, .integer(i), line: entry.line)
            default:
                throw ParseError(
                    file: file, line: entry.line,
                    message: "value of '\(key)' must be a quoted string or a whole number, not \(entry.value.noun)")
            }
        }
        return document
    }

    /// Renders `entries` (in order) after `comment` lines.
    public static func render(comment: [String], _ entries: [(String, Value)]) -> String {
        // Comments name peers, whose names come from the network: no control character may end
        // the comment line and start a line of its own.
        var out = comment.map {
            "# \(String(String.UnicodeScalarView($0.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 })))\n"
        }.joined()
        for (key, value) in entries {
            switch value {
            case .string(let s): out += "\(key) = \(quote(s))\n"
            case .integer(let i): out += "\(key) = \(i)\n"
            }
        }
        return out
    }

    /// `s` as a TOML basic string (JSONText writes only escapes TOML shares), control characters
    /// other than newline written as `?`: names come from the network, and a key file is read by
    /// people with `cat`.
    static func quote(_ s: String) -> String {
        JSONText.string(
            String(
                String.UnicodeScalarView(
                    s.unicodeScalars.map { $0 != "\n" && ($0.value < 0x20 || $0.value == 0x7F) ? "?" : $0 })))
    }
}
