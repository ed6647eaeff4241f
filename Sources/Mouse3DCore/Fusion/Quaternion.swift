import RealModule

/// A quaternion with the scalar part first, `w + xi + yj + zk`, in Hamilton convention.
///
/// As an attitude it is a unit quaternion that rotates sensor-frame vectors into the reference frame:
/// `v_ref = q ⊗ v_sensor ⊗ q*`.
public struct Quaternion: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The scalar part.
    public var w: Double
    /// The vector part.
    public var x: Double, y: Double, z: Double

    /// The identity rotation.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Creates a quaternion from its four components, scalar first.
    @inlinable
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// The rotation of `angleRadians` about the unit vector `axis`.
    @inlinable
    public init(axis: SIMD3<Double>, angleRadians: Double) {
        let half = angleRadians / 2
        let s = Double.sin(half)
        self.init(w: Double.cos(half), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// The Hamilton product `self ⊗ other`: first `other`, then `self`.
    @inlinable @inline(__always)
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// The conjugate, which for a unit quaternion is the inverse rotation.
    @inlinable
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The Euclidean norm of the four components.
    @inlinable
    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// The quaternion scaled to unit norm (identity if the norm is zero or not finite).
    @inlinable @inline(__always)
    public var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        let inv = 1 / n
        return Quaternion(w: w * inv, x: x * inv, y: y * inv, z: z * inv)
    }

    /// The quaternion scaled back to unit norm when it is already within rounding of it: one
    /// Newton step of 1/√n, `q · (3 − |q|²) / 2`, with no square root or division. The error after
    /// the step is of the order of the square of the error before (1e-16 from 1e-8).
    @inlinable @inline(__always)
    public var renormalizedNearUnit: Quaternion {
        let k = (3 - (w * w + x * x + y * y + z * z)) * 0.5
        return Quaternion(w: w * k, x: x * k, y: y * k, z: z * k)
    }

    /// `v` rotated by this (unit) quaternion: `q ⊗ v ⊗ q*`.
    @inlinable @inline(__always)
    public func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        // v + 2w(u × v) + 2u × (u × v), with u the vector part.
        let u = SIMD3(x, y, z)
        let t = 2 * cross(u, v)
        return v + w * t + cross(u, t)
    }

    /// The rotation matrix of this unit quaternion, rows first.
    @inlinable @inline(__always)
    public var rotationMatrix: Matrix3 {
        let xx = x * x
        let yy = y * y
        let zz = z * z
        let xy = x * y
        let xz = x * z
        let yz = y * z
        let wx = w * x
        let wy = w * y
        let wz = w * z
        return Matrix3(
            SIMD3(1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)),
            SIMD3(2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)),
            SIMD3(2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)))
    }

    /// Whether all four components are finite.
    @inlinable
    /// The rotation vector (axis times angle, radians) of a unit quaternion, the shorter way round.
    public var rotationVector: SIMD3<Double> {
        let sign = w < 0 ? -1.0 : 1.0
        let v = SIMD3(x, y, z) * sign
        let s = length(v)
        guard s > 1e-12 else { return v * 2 }
        return v / s * (2 * Double.atan2(y: s, x: w * sign))
    }

    public var isFinite: Bool { w.isFinite && x.isFinite && y.isFinite && z.isFinite }

    public var description: String { "(\(w), \(x), \(y), \(z))" }
}

/// The cross product `a × b`.
@inlinable @inline(__always)
public func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The dot product `a · b`.
@inlinable @inline(__always)
public func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    (a * b).sum()
}

/// The Euclidean length of `v`.
@inlinable @inline(__always)
public func length(_ v: SIMD3<Double>) -> Double {
    dot(v, v).squareRoot()
}
