import RealModule

/// An orientation of the sensor relative to a reference frame whose Z axis points up (against gravity).
///
/// The quaternion rotates sensor-frame vectors into the reference frame. Roll, pitch and yaw are the
/// Tait–Bryan angles of the Z-Y-X sequence: yaw about Z, then pitch about the new Y, then roll about
/// the newest X, so that `q = q_z(yaw) ⊗ q_y(pitch) ⊗ q_x(roll)`.
public struct Attitude: Sendable, Equatable {
    /// The unit quaternion, scalar first.
    public var quaternion: Quaternion

    /// Creates an attitude from a quaternion (normalized here).
    @inlinable
    public init(quaternion: Quaternion) {
        self.quaternion = quaternion.normalized
    }

    /// Creates an attitude from Tait–Bryan Z-Y-X angles in radians.
    @inlinable
    public init(rollRadians: Double, pitchRadians: Double, yawRadians: Double) {
        let qx = Quaternion(axis: SIMD3(1, 0, 0), angleRadians: rollRadians)
        let qy = Quaternion(axis: SIMD3(0, 1, 0), angleRadians: pitchRadians)
        let qz = Quaternion(axis: SIMD3(0, 0, 1), angleRadians: yawRadians)
        self.quaternion = (qz * qy * qx).normalized
    }

    /// Rotation about the sensor's X axis, in radians, in [-π, π].
    @inlinable
    public var rollRadians: Double {
        let q = quaternion
        return Double.atan2(y: 2 * (q.w * q.x + q.y * q.z), x: 1 - 2 * (q.x * q.x + q.y * q.y))
    }

    /// Rotation about the intermediate Y axis, in radians, in [-π/2, π/2].
    @inlinable
    public var pitchRadians: Double {
        let q = quaternion
        let s = 2 * (q.w * q.y - q.z * q.x)
        return Double.asin(min(1, max(-1, s)))
    }

    /// Rotation about the reference Z axis (up), in radians, in [-π, π].
    @inlinable
    public var yawRadians: Double {
        let q = quaternion
        return Double.atan2(y: 2 * (q.w * q.z + q.x * q.y), x: 1 - 2 * (q.y * q.y + q.z * q.z))
    }

    /// Roll, pitch and yaw in radians.
    @inlinable
    public var eulerRadians: SIMD3<Double> { SIMD3(rollRadians, pitchRadians, yawRadians) }
}
