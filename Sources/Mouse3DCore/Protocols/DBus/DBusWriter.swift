/// Writes values in D-Bus's marshalling format (the D-Bus Specification, "Marshaling (Wire
/// Format)"), little-endian unless asked otherwise: each value aligned to its size from the start of what is written (a
/// message body starts 8-aligned, so the body's alignment is the message's).
///
/// Only what mouse3d sends to a bus and to Avahi: bytes, booleans, 16- and 32-bit integers,
/// strings, object paths, signatures, arrays, structures and variants.
public struct DBusWriter: Sendable {
    /// What has been written.
    public private(set) var bytes: [UInt8] = []
    /// The byte order of what is written.
    public let bigEndian: Bool

    /// An empty writer.
    public init(bigEndian: Bool = false) { self.bigEndian = bigEndian }

    /// Zero bytes up to the next multiple of `alignment`.
    public mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// `y`.
    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// `b`: a 32-bit 0 or 1.
    public mutating func bool(_ value: Bool) { uint32(value ? 1 : 0) }

    /// `q`.
    public mutating func uint16(_ value: UInt16) {
        pad(to: 2)
        let pair = [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        bytes.append(contentsOf: bigEndian ? pair.reversed() : pair)
    }

    /// `i`.
    public mutating func int32(_ value: Int32) { uint32(UInt32(bitPattern: value)) }

    /// `u`.
    public mutating func uint32(_ value: UInt32) {
        pad(to: 4)
        let quad = stride(from: 0, to: 32, by: 8).map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
        bytes.append(contentsOf: bigEndian ? quad.reversed() : quad)
    }

    /// `s` (and `o`): its UTF-8 length, the bytes and a NUL. A NUL inside is not allowed on the wire:
    /// the text is cut there (mouse3d's names never hold one; the configuration refuses them).
    public mutating func string(_ value: String) {
        let utf8 = value.utf8.prefix { $0 != 0 }
        uint32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// `o`.
    public mutating func objectPath(_ value: String) { string(value) }

    /// `g`: a one-byte length, the signature and a NUL.
    public mutating func signature(_ value: String) {
        let utf8 = Array(value.utf8.prefix(255))
        bytes.append(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// `a…`: the byte length of the elements (not of the padding before the first), written by
    /// `elements` after padding to their alignment.
    public mutating func array(elementAlignment: Int, _ elements: (inout DBusWriter) -> Void) {
        pad(to: 4)
        let lengthAt = bytes.count
        uint32(0)
        pad(to: elementAlignment)
        let start = bytes.count
        elements(&self)
        let length = UInt32(bytes.count - start)
        for i in 0..<4 {
            bytes[lengthAt + (bigEndian ? 3 - i : i)] = UInt8(truncatingIfNeeded: length >> UInt32(8 * i))
        }
    }

    /// `ay`.
    public mutating func byteArray(_ value: some Collection<UInt8>) {
        array(elementAlignment: 1) { $0.bytes.append(contentsOf: value) }
    }

    /// `(…)`: 8-aligned.
    public mutating func structure(_ fields: (inout DBusWriter) -> Void) {
        pad(to: 8)
        fields(&self)
    }

    /// `v`: the value's signature, then the value.
    public mutating func variant(signature: String, _ value: (inout DBusWriter) -> Void) {
        self.signature(signature)
        value(&self)
    }
}
