/// The 12-byte attitude frame: roll, pitch and yaw as IEEE-754 float32, little-endian, radians, in
/// the convention of ``Attitude`` (Tait–Bryan Z-Y-X, Z up).
public struct AttitudeFrame: Sendable, Equatable, Hashable {
    /// Rotation about X, in radians, in [-π, π].
    public var roll: Float
    /// Rotation about Y, in radians, in [-π/2, π/2].
    public var pitch: Float
    /// Rotation about Z, in radians, in [-π, π].
    public var yaw: Float

    /// The size of an encoded frame, in bytes.
    public static let byteCount = 12

    /// The largest magnitude roll and yaw may have: π rounded to the nearest float (slightly above π,
    /// so that any `Double` angle in range stays in range after conversion).
    public static let rollYawLimit = Float(Double.pi)
    /// The largest magnitude pitch may have: π/2 rounded to the nearest float.
    public static let pitchLimit = Float(Double.pi / 2)

    /// Creates a frame from its three angles (not checked; see ``isValid``).
    public init(roll: Float, pitch: Float, yaw: Float) {
        self.roll = roll
        self.pitch = pitch
        self.yaw = yaw
    }

    /// The frame of an attitude, each angle rounded to the nearest float.
    public init(_ attitude: Attitude) {
        let e = attitude.eulerRadians
        self.init(roll: Float(e.x), pitch: Float(e.y), yaw: Float(e.z))
    }

    /// Whether every angle is finite and within its range.
    public var isValid: Bool {
        roll.isFinite && pitch.isFinite && yaw.isFinite
            && abs(roll) <= Self.rollYawLimit && abs(yaw) <= Self.rollYawLimit && abs(pitch) <= Self.pitchLimit
    }

    /// Appends the 12 encoded bytes to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        for value in [roll, pitch, yaw] {
            let bits = value.bitPattern
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        }
    }

    /// The 12 encoded bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        encode(into: &bytes)
        return bytes
    }

    /// Decodes 12 bytes starting at `offset`; `nil` if there are too few or the frame is not valid.
    public static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) -> AttitudeFrame? {
        guard offset >= 0, bytes.count - offset >= byteCount else { return nil }
        let frame = AttitudeFrame(
            roll: Float(bitPattern: bytes.loadLittleEndianUInt32(at: offset)),
            pitch: Float(bitPattern: bytes.loadLittleEndianUInt32(at: offset + 4)),
            yaw: Float(bitPattern: bytes.loadLittleEndianUInt32(at: offset + 8)))
        return frame.isValid ? frame : nil
    }

    /// Decodes a whole 12-byte buffer; `nil` unless it is exactly one valid frame.
    public static func decode(_ bytes: [UInt8]) -> AttitudeFrame? {
        guard bytes.count == byteCount else { return nil }
        return bytes.withUnsafeBytes { decode($0) }
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian 32-bit value at `offset` (no alignment needed; bounds checked by the caller).
    @inlinable
    public func loadLittleEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// A little-endian 64-bit value at `offset` (no alignment needed; bounds checked by the caller).
    @inlinable
    public func loadLittleEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` in little-endian byte order.
    @inlinable
    public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }
}
