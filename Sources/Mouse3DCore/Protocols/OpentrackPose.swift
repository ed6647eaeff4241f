/// opentrack's "UDP over network" input: one 48-byte datagram per pose, six little-endian doubles
/// x, y, z (cm) and yaw, pitch, roll (degrees), in opentrack's signs: yaw positive turning right,
/// pitch positive looking up, roll positive tilting left (left ear down); x, y, z are 0 for a 3-DoF
/// source. mouse3d's attitude (x the nose, z up: yaw positive turning left, pitch positive nose down,
/// roll positive tilting right) therefore goes out with all three angles negated.
public enum OpentrackPose {
    /// The datagram's size.
    public static let byteCount = 48
    /// opentrack's default port.
    public static let defaultPort: UInt16 = 4242

    /// opentrack's yaw, pitch and roll (degrees) for a mouse3d attitude's roll, pitch and yaw (radians).
    public static func angles(rollRadians: Double, pitchRadians: Double, yawRadians: Double) -> (
        yaw: Double, pitch: Double, roll: Double
    ) {
        let d = 180 / Double.pi
        return (-yawRadians * d, -pitchRadians * d, -rollRadians * d)
    }

    /// The datagram for a pose.
    public static func datagram(x: Double = 0, y: Double = 0, z: Double = 0, yaw: Double, pitch: Double, roll: Double)
        -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        for v in [x, y, z, yaw, pitch, roll] {
            let bits = v.bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
        return out
    }
}
