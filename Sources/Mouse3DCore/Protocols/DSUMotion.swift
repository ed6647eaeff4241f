/// How a sample becomes DSU's accelerometer (g) and gyroscope (°/s, pitch/yaw/roll): each DSU axis
/// is one sensor axis with a sign. Gamepads and phones arrive in mouse3d's gamepad frame (their
/// axes turned by ``GamepadMotionAxes``), so one table serves every model; IIO sensors and logs keep
/// their device axes (x right, y toward the far edge, z up) and get the other (see README "DSU").
public struct DSUAxisMapping: Sendable, Equatable {
    /// Accelerometer X, Y, Z: which sensor axis (0–2) and its sign.
    public var accelerometer: [(axis: Int, sign: Double)]
    /// Gyroscope pitch, yaw, roll: which sensor axis and its sign.
    public var gyroscope: [(axis: Int, sign: Double)]
    /// What the table is for, for messages.
    public var name: String

    /// A mapping written like `x-y-z-`: for each DSU axis in turn, the sensor axis and its sign.
    public init?(accelerometer: String, gyroscope: String, name: String) {
        guard let a = Self.parse(accelerometer), let g = Self.parse(gyroscope) else { return nil }
        self.accelerometer = a
        self.gyroscope = g
        self.name = name
    }

    static func parse(_ text: String) -> [(axis: Int, sign: Double)]? {
        let c = Array(text)
        guard c.count == 6 else { return nil }
        var out: [(axis: Int, sign: Double)] = []
        for i in 0..<3 {
            guard let axis = "xyz".firstIndex(of: c[2 * i]).map({ "xyz".distance(from: "xyz".startIndex, to: $0) }),
                c[2 * i + 1] == "+" || c[2 * i + 1] == "-"
            else { return nil }
            out.append((axis, c[2 * i + 1] == "+" ? 1 : -1))
        }
        guard Set(out.map(\.axis)).count == 3 else { return nil }
        return out
    }

    /// The Linux IIO frame that IIO sensors and logs use (x right, y toward the far edge, z up out of
    /// the face when the device lies flat). DSU's axes are X left, Y down, Z away from the player,
    /// the accelerometer reading the reaction to gravity ((0, -1, 0) g lying flat), pitch positive
    /// when the far edge rises, yaw when turning right (clockwise seen from above), roll when the
    /// right side goes down. So X = -x, Y = -z, Z = +y; pitch = +x, yaw = -z, roll = +y.
    public static let generic = DSUAxisMapping(
        accelerometer: "x-z-y+", gyroscope: "x+z-y+", name: "IIO frame (x right, y forward, z up)")!

    /// mouse3d's gamepad frame (x toward the triggers, y left, z up): X = +y, Y = -z, Z = +x; the far
    /// edge rising is a turn about -y, so pitch = -y, yaw = -z, roll = +x. The same for every
    /// gamepad, whichever driver: the per-driver differences are undone before (``GamepadMotionAxes``).
    public static let gamepad = DSUAxisMapping(
        accelerometer: "y+z-x+", gyroscope: "y-z-x+", name: "gamepad frame (x to the triggers, y left, z up)")!

    /// The mapping for samples in mouse3d's gamepad frame, or in a device's own axes.
    public static func forSamples(inGamepadFrame: Bool) -> DSUAxisMapping { inGamepadFrame ? gamepad : generic }

    /// The DSU accelerometer (g) and gyroscope (°/s) for `sample`, less `bias` (rad/s) on the gyroscope.
    public func motion(_ sample: MotionSample, bias: SIMD3<Double> = .zero) -> (
        accelerometer: SIMD3<Float>, gyroscope: SIMD3<Float>
    ) {
        let f = sample.specificForceMetersPerSecondSquared / standardGravityMetersPerSecondSquared
        let w = (sample.angularVelocityRadiansPerSecond - bias) * (180 / .pi)
        func pick(_ v: SIMD3<Double>, _ m: [(axis: Int, sign: Double)]) -> SIMD3<Float> {
            SIMD3(Float(v[m[0].axis] * m[0].sign), Float(v[m[1].axis] * m[1].sign), Float(v[m[2].axis] * m[2].sign))
        }
        return (pick(f, accelerometer), pick(w, gyroscope))
    }

    public static func == (a: DSUAxisMapping, b: DSUAxisMapping) -> Bool {
        a.name == b.name && a.accelerometer.map(\.axis) == b.accelerometer.map(\.axis)
            && a.accelerometer.map(\.sign) == b.accelerometer.map(\.sign)
            && a.gyroscope.map(\.axis) == b.gyroscope.map(\.axis) && a.gyroscope.map(\.sign) == b.gyroscope.map(\.sign)
    }

    /// A stable, non-zero, locally administered MAC for `device`: its Bluetooth address when the key
    /// carries one, otherwise six bytes of a hash of the key.
    public static func mac(for device: String) -> [UInt8] {
        if let last = device.split(separator: ":", maxSplits: 2).last {
            let parts = last.split(separator: ":")
            if parts.count == 6, let bytes = Optional(parts.compactMap { UInt8($0, radix: 16) }), bytes.count == 6,
                bytes.contains(where: { $0 != 0 })
            {
                return bytes
            }
        }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for b in device.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        var mac = (0..<6).map { UInt8(truncatingIfNeeded: h >> (8 * UInt64($0))) }
        mac[0] = (mac[0] & 0xFC) | 0x02  // locally administered, unicast
        return mac
    }
}
