/// The head of an HTTP/1.1 request (RFC 9112), as far as the live view needs one: the request line
/// and the header fields. Parsed strictly and within limits, since whoever can reach the port sends
/// it: a head larger than ``maximumBytes`` or with more than ``maximumFields`` fields, a bare LF, a
/// folded line, a field name with spaces, or a repeated `Host` is refused, not guessed at.
public struct HTTPRequestHead: Sendable, Equatable {
    /// The largest head accepted, in bytes (request line, fields and the empty line).
    public static let maximumBytes = 8192
    /// The most header fields accepted.
    public static let maximumFields = 64

    /// `GET`, `POST`...
    public var method: String
    /// The request target, e.g. `/stream`.
    public var target: String
    /// The fields in order, names in lower case.
    public var fields: [(name: String, value: String)]

    /// A head with these parts.
    public init(method: String, target: String, fields: [(name: String, value: String)]) {
        self.method = method
        self.target = target
        self.fields = fields
    }

    /// The value of the field `name` (any case), the first if it repeats.
    public func field(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name == wanted }?.value
    }

    /// The path of the target (without a query).
    public var path: Substring { target.prefix { $0 != "?" } }

    /// The value of the query parameter `name` in the target (`/?token=abc`), as sent (the view's
    /// values need no percent-decoding), or nil.
    public func query(_ name: String) -> Substring? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == name { return parts.count > 1 ? parts[1] : "" }
        }
        return nil
    }

    /// Whether the field `name` lists `token` (comma-separated, any case), as `Connection: keep-alive, Upgrade` does.
    public func field(_ name: String, contains token: String) -> Bool {
        let wanted = token.lowercased()
        return fields.contains {
            $0.name == name.lowercased()
                && $0.value.lowercased().split(separator: ",").contains { $0.trimmingSpaces == wanted }
        }
    }

    public static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.method == b.method && a.target == b.target && a.fields.map(\.name) == b.fields.map(\.name)
            && a.fields.map(\.value) == b.fields.map(\.value)
    }

    /// What reading a head from the bytes received so far gives.
    public enum Parse: Sendable, Equatable {
        /// Not all of it yet (and still within the limits).
        case incomplete
        /// The head, and how many bytes it took (what follows is the body or the next protocol).
        case complete(HTTPRequestHead, length: Int)
        /// Not a head this server takes; the connection is closed with the reason counted.
        case invalid(String)
    }

    /// Whether the end of a head (CRLF CRLF) is in `bytes`, looking only past `scanned` (less the
    /// three bytes an end may straddle), which is then moved to the end: a head that arrives a byte
    /// at a time costs its length once, not once per byte. True also once `bytes` is longer than a
    /// head may be (so that ``parse(_:)`` refuses it).
    public static func isComplete(_ bytes: [UInt8], scanned: inout Int) -> Bool {
        let from = max(0, scanned - 3)
        scanned = bytes.count
        guard bytes.count <= maximumBytes else { return true }
        return bytes.count >= 4
            && bytes.withUnsafeBufferPointer { b in
                (from..<(b.count - 3)).contains { b[$0] == 13 && b[$0 + 1] == 10 && b[$0 + 2] == 13 && b[$0 + 3] == 10 }
            }
    }

    /// Reads a head from the start of `bytes`.
    public static func parse(_ bytes: some Collection<UInt8>) -> Parse {
        let data = Array(bytes.prefix(maximumBytes + 1))
        // The end of the head: the first CRLF CRLF.
        var end: Int?
        var i = 0
        while i + 3 < data.count {
            if data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
                end = i
                break
            }
            i += 1
        }
        guard let end else {
            return data.count > maximumBytes ? .invalid("head larger than \(maximumBytes) bytes") : .incomplete
        }
        guard end + 4 <= maximumBytes else { return .invalid("head larger than \(maximumBytes) bytes") }
        // Lines split at CRLF; a CR or LF anywhere else is refused.
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var j = 0
        while j < end {
            if data[j] == 13 {
                guard data[j + 1] == 10 else { return .invalid("bare CR") }
                lines.append(data[start..<j])
                j += 2
                start = j
            } else if data[j] == 10 {
                return .invalid("bare LF")
            } else {
                j += 1
            }
        }
        lines.append(data[start..<end])
        guard let first = lines.first, let requestLine = String(validating: first, as: UTF8.self) else {
            return .invalid("request line not UTF-8")
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter && $0.isUppercase }),
            parts[1].hasPrefix("/"),
            parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0"
        else { return .invalid("malformed request line") }
        let fieldLines = lines.dropFirst()
        guard fieldLines.count <= maximumFields else { return .invalid("more than \(maximumFields) header fields") }
        var fields: [(name: String, value: String)] = []
        for line in fieldLines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                return .invalid("header field without a name")
            }
            let name = line[line.startIndex..<colon]
            // A token: no spaces, tabs or controls (a space before the colon is how smuggling starts).
            guard name.allSatisfy({ $0 > 32 && $0 < 127 }) else { return .invalid("bad header field name") }
            guard let value = String(validating: line[(colon + 1)...], as: UTF8.self) else {
                return .invalid("header value not UTF-8")
            }
            fields.append((String(decoding: name, as: UTF8.self).lowercased(), value.trimmingSpaces))
        }
        guard fields.filter({ $0.name == "host" }).count <= 1 else { return .invalid("repeated Host") }
        return .complete(
            HTTPRequestHead(method: String(parts[0]), target: String(parts[1]), fields: fields), length: end + 4)
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    var trimmingSpaces: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension HTTPRequestHead {
    /// What a connection's received bytes gave.
    public enum Taken: Sendable, Equatable {
        /// Not a whole head yet.
        case incomplete
        /// Not a head this server takes (a 400 is due).
        case invalid
        /// A head, taken out of the bytes (what followed it stays).
        case head(HTTPRequestHead)
    }

    /// Takes a whole head from the start of `inbound`, looking for its end only past `scanned` (see
    /// ``isComplete(_:scanned:)``).
    public static func take(from inbound: inout [UInt8], scanned: inout Int) -> Taken {
        guard isComplete(inbound, scanned: &scanned) else { return .incomplete }
        switch parse(inbound) {
        case .incomplete: return .incomplete
        case .invalid: return .invalid
        case .complete(let head, let length):
            inbound.removeFirst(length)
            return .head(head)
        }
    }
}
