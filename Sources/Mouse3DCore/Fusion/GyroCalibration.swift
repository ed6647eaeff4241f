import RealModule

/// A gyroscope bias measured at rest for one device, as `mouse3d calibrate` stores it and `send` and
/// `run` start from.
public struct GyroCalibration: Sendable, Equatable {
    /// The device it belongs to (see ``deviceKey(kind:name:deviceID:uniqueID:sysfsPath:)``).
    public var device: String
    /// The measured bias, in rad/s.
    public var biasRadiansPerSecond: SIMD3<Double>
    /// How many still samples it is the mean of.
    public var samples: Int
    /// The standard deviation of the gyroscope while still, in rad/s (the sensor's noise).
    public var noiseRadiansPerSecond: Double

    /// Creates a calibration.
    public init(device: String, biasRadiansPerSecond: SIMD3<Double>, samples: Int, noiseRadiansPerSecond: Double) {
        self.device = device
        self.biasRadiansPerSecond = biasRadiansPerSecond
        self.samples = samples
        self.noiseRadiansPerSecond = noiseRadiansPerSecond
    }

    /// A stable key for a device: `evdev vvvv:pppp:UNIQ` for a gamepad's motion sensors (the bus's
    /// vendor and product ids and the unique id, a controller's MAC address, which survive
    /// re-plugging and a new event node), `iio NAME PATH` for an IIO sensor (its name and sysfs
    /// path), `log PATH` for a replayed log.
    public static func deviceKey(kind: String, name: String, deviceID: String?, uniqueID: String?, sysfsPath: String?)
        -> String
    {
        switch kind {
        case "evdev": "evdev \(deviceID ?? "0000:0000"):\((uniqueID?.isEmpty ?? true) ? name : uniqueID!)"
        case "iio": "iio \(name) \(sysfsPath ?? "")"
        default: "\(kind) \(name)"
        }
    }

    /// The key of a replayed log: `log PATH`.
    public static func logKey(path: String) -> String { "log " + path }

    /// The file name the calibration of `device` is kept under: the key with everything but letters,
    /// digits, '-' and '.' turned into '_', and a hash of the full key so that two keys that differ
    /// only there still get their own files.
    public static func fileName(for device: String) -> String {
        var safe = String(
            device.unicodeScalars.map { s in
                (("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || s == "-" || s == ".")
                    ? Character(s) : "_"
            }.prefix(80))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bit
        for byte in device.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        safe += "-" + String(hash, radix: 16)
        return safe + ".calibration"
    }

    /// The file's text.
    public var text: String {
        let d = biasRadiansPerSecond * (180 / .pi)
        return KeyValueText.render(
            comment: ["mouse3d gyroscope calibration, written by `mouse3d calibrate`; `send` and `run` start from it."],
            [
                ("device", .string(device)),
                ("gyro_bias_degrees_per_second", .string("\(d.x) \(d.y) \(d.z)")),
                ("samples", .integer(Int64(samples))),
                ("noise_millidegrees_per_second", .integer(Int64((noiseRadiansPerSecond * 180 / .pi * 1000).rounded())))
            ])
    }

    /// Reads a calibration file; errors name the file and line.
    public init(parsing text: String, file: String) throws(KeyValueText.ParseError) {
        let document = try KeyValueText.parse(text, file: file)
        device = try document.string("device")
        let biasText = try document.string("gyro_bias_degrees_per_second")
        let words = biasText.split(separator: " ")
        let parts = words.compactMap { Double(String($0)) }
        guard words.count == 3, parts.count == 3, parts.allSatisfy({ $0.isFinite && abs($0) < 100 }) else {
            throw KeyValueText.ParseError(
                file: file, line: document.entries["gyro_bias_degrees_per_second"]?.line ?? 0,
                message:
                    "gyro_bias_degrees_per_second must be three numbers of at most 100 °/s, as \"0.61 -0.5 0.8\"; run `mouse3d calibrate` again"
            )
        }
        biasRadiansPerSecond = SIMD3(parts[0], parts[1], parts[2]) * (.pi / 180)
        samples = Int(try document.integer("samples"))
        noiseRadiansPerSecond =
            Double(try document.integer("noise_millidegrees_per_second", default: 0)) / 1000 * .pi / 180
    }

    /// The bias in °/s, for messages: "0.601/-0.499/0.800 °/s".
    public var summary: String {
        let d = biasRadiansPerSecond * (180 / .pi)
        return "\(fixed(d.x, 3))/\(fixed(d.y, 3))/\(fixed(d.z, 3)) °/s"
    }
}
