import RealModule

/// Turns successive attitudes into the turn between each and the last, as a gyro space sees it:
/// degrees to the right and down, the way screen coordinates and a game's camera go (turning
/// right, yaw decreasing, is +x; nose down, pitch increasing, is +y). The pointer and the
/// gamepad's gyro stick share it.
public struct GyroSpaceTurns: Sendable {
    private var previous: (yaw: Double, pitch: Double, attitude: Quaternion)?

    /// No attitude seen yet.
    public init() {}

    /// Forgets the last attitude: the next turn is measured from the next one.
    public mutating func reset() { previous = nil }

    /// Feeds one attitude (radians, as ``Attitude``'s Euler angles); returns the turn since the
    /// last one in `space`, in degrees (right, down), or nil for the first.
    public mutating func turn(
        in space: GyroSpace, rollRadians: Double, pitchRadians: Double, yawRadians: Double
    ) -> SIMD2<Double>? {
        let yaw = yawRadians * 180 / .pi
        let pitch = pitchRadians * 180 / .pi
        let attitude = Attitude(rollRadians: rollRadians, pitchRadians: pitchRadians, yawRadians: yawRadians).quaternion
        defer { previous = (yaw, pitch, attitude) }
        guard let p = previous else { return nil }
        switch space {
        case .world:
            var dyaw = yaw - p.yaw
            if dyaw > 180 { dyaw -= 360 } else if dyaw < -180 { dyaw += 360 }
            return SIMD2(-dyaw, pitch - p.pitch)
        case .local:
            // The turn since the last attitude, as a rotation vector in the controller's frame.
            let body = (p.attitude.conjugate * attitude).rotationVector * (180 / .pi)
            return SIMD2(-body.z, body.y)
        case .player:
            // Sideways about gravity (the turn in the world's frame); up and down about the
            // controller's pitch axis laid flat (perpendicular to gravity), so a turn about gravity
            // never shows vertically whatever the grip.
            let world = (attitude * p.attitude.conjugate).rotationVector * (180 / .pi)
            let axis = attitude.rotate(SIMD3(0, 1, 0))
            let flat = SIMD3(axis.x, axis.y, 0)
            let body = (p.attitude.conjugate * attitude).rotationVector * (180 / .pi)
            let vertical = length(flat) > 1e-6 ? dot(world, flat / length(flat)) : body.y
            return SIMD2(-world.z, vertical)
        }
    }
}
