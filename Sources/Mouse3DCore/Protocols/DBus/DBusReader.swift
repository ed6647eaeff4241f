/// Reads values in D-Bus's marshalling format, in either byte order, from bytes that came from a
/// socket: every length is checked against what is there, strings must be UTF-8 with their NUL,
/// booleans 0 or 1, and containers nest at most as deep as the specification allows. Anything else
/// throws ``DBusFormatError``; nothing is trusted.
public struct DBusReader: Sendable {
    /// The bytes read from (a message's header or body).
    public let bytes: [UInt8]
    /// Where the next value starts.
    public private(set) var offset: Int
    /// The bytes' order.
    public let bigEndian: Bool
    /// Offsets are aligned relative to this (the message's start).
    let origin: Int

    /// Reads `bytes` from `offset`, aligning relative to `origin`.
    public init(_ bytes: [UInt8], offset: Int = 0, origin: Int = 0, bigEndian: Bool = false) {
        self.bytes = bytes
        self.offset = offset
        self.origin = origin
        self.bigEndian = bigEndian
    }

    /// Whether every byte has been read.
    public var atEnd: Bool { offset >= bytes.count }

    /// Skips the padding up to `alignment`, which must be zero bytes.
    public mutating func align(_ alignment: Int) throws(DBusFormatError) {
        let skip = (alignment - (offset - origin) % alignment) % alignment
        guard offset + skip <= bytes.count else { throw .truncated }
        for i in offset..<offset + skip where bytes[i] != 0 { throw .invalid("non-zero padding") }
        offset += skip
    }

    private mutating func take(_ count: Int) throws(DBusFormatError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw .truncated }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    private mutating func unsigned(_ size: Int) throws(DBusFormatError) -> UInt64 {
        try align(size)
        let raw = try take(size)
        var value: UInt64 = 0
        if bigEndian {
            for b in raw { value = value << 8 | UInt64(b) }
        } else {
            for b in raw.reversed() { value = value << 8 | UInt64(b) }
        }
        return value
    }

    /// `y`.
    public mutating func byte() throws(DBusFormatError) -> UInt8 { try take(1).first! }

    /// `b`.
    public mutating func bool() throws(DBusFormatError) -> Bool {
        switch try uint32() {
        case 0: return false
        case 1: return true
        default: throw .invalid("a boolean other than 0 or 1")
        }
    }

    /// `q`.
    public mutating func uint16() throws(DBusFormatError) -> UInt16 { UInt16(try unsigned(2)) }

    /// `i`.
    public mutating func int32() throws(DBusFormatError) -> Int32 { Int32(bitPattern: try uint32()) }

    /// `u`.
    public mutating func uint32() throws(DBusFormatError) -> UInt32 { UInt32(try unsigned(4)) }

    /// `s`.
    public mutating func string() throws(DBusFormatError) -> String {
        let length = Int(try uint32())
        return try text(length)
    }

    /// `o`: a string of the form `/a/b_c`.
    public mutating func objectPath() throws(DBusFormatError) -> String {
        let path = try string()
        guard DBusReader.isObjectPath(path) else { throw .invalid("a malformed object path") }
        return path
    }

    /// `g`.
    public mutating func signature() throws(DBusFormatError) -> String {
        let length = Int(try byte())
        return try text(length)
    }

    private mutating func text(_ length: Int) throws(DBusFormatError) -> String {
        let raw = try take(length)
        guard try take(1).first == 0 else { throw .invalid("a string without its NUL") }
        guard !raw.contains(0), let text = String(validating: raw, as: UTF8.self) else {
            throw .invalid("a string that is not UTF-8")
        }
        return text
    }

    /// `a…`: calls `element` until the array's bytes are used up (each call must read one element).
    public mutating func array(elementAlignment: Int, _ element: (inout DBusReader) throws(DBusFormatError) -> Void)
        throws(DBusFormatError)
    {
        let length = Int(try uint32())
        guard length <= 1 << 26 else { throw .invalid("an array over 64 MiB") }
        try align(elementAlignment)
        let end = offset + length
        guard end <= bytes.count else { throw .truncated }
        while offset < end {
            let before = offset
            try element(&self)
            guard offset > before else { throw .invalid("an empty array element") }
        }
        guard offset == end else { throw .invalid("an array element past the array's end") }
    }

    /// `ay`.
    public mutating func byteArray() throws(DBusFormatError) -> [UInt8] {
        let length = Int(try uint32())
        return Array(try take(length))
    }

    /// `aay`: TXT records and the like.
    public mutating func byteArrays() throws(DBusFormatError) -> [[UInt8]] {
        var result: [[UInt8]] = []
        try array(elementAlignment: 4) { (r: inout DBusReader) throws(DBusFormatError) in
            result.append(try r.byteArray())
        }
        return result
    }

    /// Reads past one value of the complete type `signature` (a header field of a code not known,
    /// say), checking it as it goes.
    public mutating func skip(signature: String) throws(DBusFormatError) {
        var types = Array(signature.utf8)[...]
        try skipOne(&types, arrays: 0, structs: 0)
        guard types.isEmpty else { throw .invalid("a variant holding more than one type") }
    }

    /// Skips one value of the first complete type in `types`, consuming that type. Nesting as in the
    /// specification: at most 32 arrays and 32 structures deep.
    private mutating func skipOne(_ types: inout ArraySlice<UInt8>, arrays: Int, structs: Int)
        throws(DBusFormatError)
    {
        guard arrays <= 32, structs <= 32 else { throw .invalid("containers nested too deep") }
        guard let code = types.popFirst() else { throw .invalid("an incomplete signature") }
        switch code {
        case UInt8(ascii: "y"): _ = try byte()
        case UInt8(ascii: "b"): _ = try bool()
        case UInt8(ascii: "n"), UInt8(ascii: "q"): _ = try unsigned(2)
        case UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "h"): _ = try unsigned(4)
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"): _ = try unsigned(8)
        case UInt8(ascii: "s"): _ = try string()
        case UInt8(ascii: "o"): _ = try objectPath()
        case UInt8(ascii: "g"): _ = try signature()
        case UInt8(ascii: "v"):
            let inner = try signature()
            var innerTypes = Array(inner.utf8)[...]
            try skipOne(&innerTypes, arrays: arrays, structs: structs + 1)
            guard innerTypes.isEmpty else { throw .invalid("a variant holding more than one type") }
        case UInt8(ascii: "a"):
            let elementTypes = types
            guard let first = elementTypes.first else { throw .invalid("an array without an element type") }
            var rest = elementTypes
            // Consume the element type once even when the array is empty.
            try DBusReader.consumeType(&rest, arrays: arrays + 1, structs: structs)
            let alignment = DBusReader.alignment(of: first)
            try array(elementAlignment: alignment) { (r: inout DBusReader) throws(DBusFormatError) in
                var element = elementTypes
                if first == UInt8(ascii: "{") {
                    try r.align(8)
                    element = element.dropFirst()
                    try r.skipOne(&element, arrays: arrays + 1, structs: structs + 1)
                    try r.skipOne(&element, arrays: arrays + 1, structs: structs + 1)
                    guard element.first == UInt8(ascii: "}") else { throw .invalid("a malformed dictionary entry") }
                } else {
                    try r.skipOne(&element, arrays: arrays + 1, structs: structs)
                }
            }
            types = rest
        case UInt8(ascii: "("):
            try align(8)
            while types.first != UInt8(ascii: ")") {
                guard !types.isEmpty else { throw .invalid("an unclosed structure") }
                try skipOne(&types, arrays: arrays, structs: structs + 1)
            }
            types = types.dropFirst()
        default:
            throw .invalid("an unknown type code")
        }
    }

    /// Consumes one complete type from `types` without reading any value.
    static func consumeType(_ types: inout ArraySlice<UInt8>, arrays: Int, structs: Int) throws(DBusFormatError) {
        guard arrays <= 32, structs <= 32 else { throw .invalid("containers nested too deep") }
        guard let code = types.popFirst() else { throw .invalid("an incomplete signature") }
        switch code {
        case UInt8(ascii: "a"): try consumeType(&types, arrays: arrays + 1, structs: structs)
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            let close = code == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
            while types.first != close {
                guard !types.isEmpty else { throw .invalid("an unclosed container") }
                try consumeType(&types, arrays: arrays, structs: structs + 1)
            }
            types = types.dropFirst()
        case UInt8(ascii: "y"), UInt8(ascii: "b"), UInt8(ascii: "n"), UInt8(ascii: "q"), UInt8(ascii: "i"),
            UInt8(ascii: "u"), UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "s"),
            UInt8(ascii: "o"), UInt8(ascii: "g"), UInt8(ascii: "v"), UInt8(ascii: "h"):
            break
        default:
            throw .invalid("an unknown type code")
        }
    }

    static func alignment(of code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 4
        }
    }

    /// `/`, or `/` followed by elements of `[A-Za-z0-9_]` separated by single slashes.
    static func isObjectPath(_ path: String) -> Bool {
        let utf8 = Array(path.utf8)
        guard utf8.first == UInt8(ascii: "/") else { return false }
        if utf8.count == 1 { return true }
        guard utf8.last != UInt8(ascii: "/") else { return false }
        var previousSlash = false
        for c in utf8.dropFirst() {
            if c == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
                continue
            }
            previousSlash = false
            let ok =
                (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
            if !ok { return false }
        }
        return true
    }
}
