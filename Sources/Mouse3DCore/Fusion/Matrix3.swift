/// A 3×3 matrix of `Double`, stored as three rows.
public struct Matrix3: Sendable, Equatable {
    /// The rows, top to bottom.
    public var r0: SIMD3<Double>, r1: SIMD3<Double>, r2: SIMD3<Double>

    /// Creates a matrix from its rows.
    @inlinable
    public init(_ r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    /// The identity scaled by `s`.
    @inlinable
    public static func diagonal(_ s: Double) -> Matrix3 {
        Matrix3(SIMD3(s, 0, 0), SIMD3(0, s, 0), SIMD3(0, 0, s))
    }

    /// The diagonal matrix with `d` on its diagonal.
    @inlinable @inline(__always)
    public static func diagonal(_ d: SIMD3<Double>) -> Matrix3 {
        Matrix3(SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z))
    }

    /// The columns, left to right.
    @inlinable @inline(__always)
    public var transposed: Matrix3 {
        Matrix3(SIMD3(r0.x, r1.x, r2.x), SIMD3(r0.y, r1.y, r2.y), SIMD3(r0.z, r1.z, r2.z))
    }

    /// The diagonal.
    @inlinable
    public var diagonalElements: SIMD3<Double> { SIMD3(r0.x, r1.y, r2.z) }

    /// `m · v`.
    @inlinable @inline(__always)
    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(dot(m.r0, v), dot(m.r1, v), dot(m.r2, v))
    }

    /// The matrix product `a · b`.
    @inlinable @inline(__always)
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(
            a.r0.x * b.r0 + a.r0.y * b.r1 + a.r0.z * b.r2,
            a.r1.x * b.r0 + a.r1.y * b.r1 + a.r1.z * b.r2,
            a.r2.x * b.r0 + a.r2.y * b.r1 + a.r2.z * b.r2)
    }

    /// The element-wise sum.
    @inlinable @inline(__always)
    public static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2)
    }

    /// The element-wise difference.
    @inlinable @inline(__always)
    public static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2)
    }

    /// The determinant.
    @inlinable
    public var determinant: Double { dot(r0, cross(r1, r2)) }

    /// Every element times `s`.
    @inlinable
    public static func * (m: Matrix3, s: Double) -> Matrix3 { Matrix3(m.r0 * s, m.r1 * s, m.r2 * s) }

    /// The inverse, by the adjugate; `nil` when the matrix is singular.
    @inlinable @inline(__always)
    public var inverse: Matrix3? {
        let c0 = cross(r1, r2)
        let c1 = cross(r2, r0)
        let c2 = cross(r0, r1)
        let det = dot(r0, c0)
        guard det != 0, det.isFinite else { return nil }
        let inv = 1 / det
        // The adjugate's columns are the cross products above.
        return Matrix3(c0 * inv, c1 * inv, c2 * inv).transposed
    }
}

extension Matrix3 {
    /// Adds `d` to the diagonal.
    @inlinable @inline(__always)
    public mutating func addToDiagonal(_ d: SIMD3<Double>) {
        r0.x += d.x
        r1.y += d.y
        r2.z += d.z
    }

    /// The element in `row`, `column` (both 0-based).
    @inlinable
    public subscript(row: Int, column: Int) -> Double {
        get {
            switch row {
            case 0: r0[column]
            case 1: r1[column]
            default: r2[column]
            }
        }
        set {
            switch row {
            case 0: r0[column] = newValue
            case 1: r1[column] = newValue
            default: r2[column] = newValue
            }
        }
    }
}
