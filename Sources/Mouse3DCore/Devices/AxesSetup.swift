import RealModule

/// A device's axes as a person showed them (`mouse3d calibrate --axes`): the rotation from the
/// axes its samples arrive in (a driver's or a chip's, before any table) to mouse3d's frame (x
/// forward, y left, z up), and what its accelerometer reads. Stored per device beside the bias; it
/// replaces the driver table, the mount matrices and the hold.
public struct AxesSetup: Sendable, Equatable {
    /// The device it belongs to (``GyroCalibration/deviceKey(kind:name:deviceID:uniqueID:sysfsPath:)``).
    public var device: String
    /// The device's axes → mouse3d's, a rotation, for both sensors.
    public var rotation: Matrix3
    /// +1: the accelerometer reads the specific force; −1: the gravity vector.
    public var accelerometerSign: Double

    /// Creates a setup.
    public init(device: String, rotation: Matrix3, accelerometerSign: Double) {
        self.device = device
        self.rotation = rotation
        self.accelerometerSign = accelerometerSign
    }

    /// `sample` in mouse3d's frame.
    public func apply(_ sample: MotionSample) -> MotionSample {
        var s = sample
        s.angularVelocityRadiansPerSecond = rotation * sample.angularVelocityRadiansPerSecond
        s.specificForceMetersPerSecondSquared =
            rotation * sample.specificForceMetersPerSecondSquared * accelerometerSign
        return s
    }

    /// The file name it is kept under (the calibration's, with `.axes`).
    public static func fileName(for device: String) -> String {
        String(GyroCalibration.fileName(for: device).dropLast(".calibration".count)) + ".axes"
    }

    /// The rotation as text: rows separated by `;`, as a mount matrix is written.
    public var rotationText: String {
        [rotation.r0, rotation.r1, rotation.r2].map { r in
            [r.x, r.y, r.z].map { fixed(abs($0) < 5e-5 ? 0 : $0, 4) }.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    /// The file's text.
    public var text: String {
        KeyValueText.render(
            comment: [
                "mouse3d axes setup, written by `mouse3d calibrate --axes`: the device's axes -> mouse3d's",
                "(x forward, y left, z up); replaces the driver table, mount matrices and the hold."
            ],
            [
                ("device", .string(device)),
                ("rotation", .string(rotationText)),
                ("accelerometer", .string(accelerometerSign > 0 ? "specific force" : "gravity vector"))
            ])
    }

    /// Reads a setup file; errors name the file and line.
    public init(parsing text: String, file: String) throws(KeyValueText.ParseError) {
        let document = try KeyValueText.parse(text, file: file)
        device = try document.string("device")
        let rotationText = try document.string("rotation")
        guard let m = MountMatrix(rotationText), m.isRotation, m.matrix.determinant > 0 else {
            throw KeyValueText.ParseError(
                file: file, line: document.entries["rotation"]?.line ?? 0,
                message:
                    "rotation must be a rotation (nine numbers, rows separated by ';', right-handed); run `mouse3d calibrate --axes` again"
            )
        }
        rotation = m.matrix
        switch try document.string("accelerometer") {
        case "specific force": accelerometerSign = 1
        case "gravity vector": accelerometerSign = -1
        default:
            throw KeyValueText.ParseError(
                file: file, line: document.entries["accelerometer"]?.line ?? 0,
                message: "accelerometer must be \"specific force\" or \"gravity vector\"")
        }
    }

    /// Where mouse3d's forward, left and up lie among the device's own axes, in words: "forward is
    /// the device's +y, left its −x, up its +z", each with how far from that axis where it is off by
    /// more than a degree.
    public var inWords: String {
        let names = ["x", "y", "z"]
        func word(_ v: SIMD3<Double>) -> String {
            let i = abs(v.x) >= abs(v.y) && abs(v.x) >= abs(v.z) ? 0 : abs(v.y) >= abs(v.z) ? 1 : 2
            let off = Double.acos(min(1, abs(v[i]) / max(length(v), 1e-12))) * 180 / .pi
            return (v[i] < 0 ? "−" : "+") + names[i] + (off > 1 ? " (\(fixed(off, 0))° off it)" : "")
        }
        return
            "forward is the device's \(word(rotation.r0)), left its \(word(rotation.r1)), up its \(word(rotation.r2))"
    }

    /// For the start-up line.
    public var summary: String {
        "axes from `calibrate --axes` (rows \(rotationText); accelerometer reads the \(accelerometerSign > 0 ? "specific force" : "gravity vector"))"
    }
}
