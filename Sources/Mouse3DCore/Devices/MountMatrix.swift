/// A sensor's mounting matrix (IIO `mount_matrix`, or a configured override): turns readings in
/// the chip's axes into the device's axes, `v_device = M · v_chip`.
public struct MountMatrix: Sendable, Equatable {
    /// The matrix.
    public var matrix: Matrix3

    /// The identity: chip axes are device axes.
    public static let identity = MountMatrix(matrix: .diagonal(1))

    /// Creates a mounting matrix.
    public init(matrix: Matrix3) { self.matrix = matrix }

    /// Parses the sysfs text `"x1, y1, z1; x2, y2, z2; x3, y3, z3"` (rows separated by `;`);
    /// `nil` when it is not nine numbers in that shape.
    public init?(_ text: String) {
        let rows = text.split(separator: ";").map {
            $0.split(separator: ",").compactMap { Double($0.filter { !$0.isWhitespace }) }
        }
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        matrix = Matrix3(
            SIMD3(rows[0][0], rows[0][1], rows[0][2]), SIMD3(rows[1][0], rows[1][1], rows[1][2]),
            SIMD3(rows[2][0], rows[2][1], rows[2][2]))
    }

    /// Whether it is a rotation or a rotation with a mirror: rows of unit length at right angles (to 1e-3).
    public var isRotation: Bool {
        let rows = [matrix.r0, matrix.r1, matrix.r2]
        for i in 0..<3 {
            for j in 0..<3 {
                let dot = (rows[i] * rows[j]).sum()
                if abs(dot - (i == j ? 1 : 0)) > 1e-3 { return false }
            }
        }
        return true
    }

    /// `v` in the device's axes.
    public func apply(_ v: SIMD3<Double>) -> SIMD3<Double> { matrix * v }
}
