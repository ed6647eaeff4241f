/// How an IIO sensor's axes become mouse3d's frame (x forward, the way the device points; y left;
/// z up), in three steps. Sources: the kernel's IIO ABI and mount-matrix binding, systemd's
/// `60-sensor.hwdb` and iio-sensor-proxy (README "IIO sensors: which way is up").
///
/// 1. **Mount.** A mount matrix brings the chip's axes to the device's (for a device with a screen:
///    x right, y toward the top edge, z out of the screen), `v_device = M · v_chip` (the kernel's
///    mount-matrix binding). Taken from, in order: the configuration (`mount_matrix`), udev's hwdb
///    (`ACCEL_MOUNT_MATRIX`), the kernel (`in_accel_mount_matrix`, `mount_matrix`), else the
///    identity. A configured or kernel matrix is a rotation (a determinant of −1 is taken as a
///    rotation times −1). An hwdb matrix is written for iio-sensor-proxy, which expects the
///    accelerometer's x and y to read the gravity vector after it (its orientation test: upright
///    reads y = −1 g, values from Windows 10) and never looks at the sign of z: so only its x and y
///    rows are trusted, the rotation's z row is their cross product, and its x and y rows are
///    negated for a chip that reads the specific force.
/// 2. **Sign.** Drivers differ in what the accelerometer reads at rest: the specific force (+1 g
///    up: the kernel's mount-matrix binding, Android, most IIO drivers, mouse3d) or the gravity
///    vector (−1 g up: Windows, whose convention HID sensor hubs follow and hid-sensor-accel-3d
///    passes on unchanged; systemd: "the inverse direction (Android & W3C specs vs HID)"). The
///    reading at start decides, on the assumption that a person points with the screen facing up
///    (lying flat) or toward them (upright): the axis the reading is largest along is up. Held on
///    its side (largest along x), or upright with an hwdb matrix (whose y already has a fixed
///    sign), the driver's convention stands.
/// 3. **Hold.** Lying flat (up along z), the device points with its top edge (forward = y); held
///    upright (up along y, or x on its side), it points with its back (forward = −z).
///    Left = up × forward.
public struct SensorFrame: Sendable, Equatable {
    /// Where the mount matrix came from.
    public enum MountOrigin: String, Sendable, Equatable {
        /// `mount_matrix` in the configuration or `--mount-matrix`.
        case configuration = "the configured mount matrix"
        /// udev's hwdb (`ACCEL_MOUNT_MATRIX`).
        case hwdb = "udev's hwdb (ACCEL_MOUNT_MATRIX)"
        /// The kernel driver's `in_accel_mount_matrix` or `mount_matrix`.
        case kernel = "the kernel's mount matrix"
        /// None: the driver's axes.
        case none = "the driver's own (no mount matrix)"
    }

    /// What an accelerometer reads at rest.
    public enum Convention: String, Sendable, Equatable {
        /// +1 g on the axis pointing up.
        case specificForce = "specific force"
        /// −1 g on the axis pointing up (Windows, HID sensor hubs).
        case gravity = "gravity vector"

        /// +1 or −1: the specific force is this times the reading.
        public var sign: Double { self == .specificForce ? 1 : -1 }

        /// What the accelerometer of the IIO device named `name` (its `name` attribute) reads:
        /// the gravity vector for HID sensor hubs (`accel_3d`), the specific force otherwise.
        public static func ofDriver(named name: String) -> Convention {
            name == "accel_3d" ? .gravity : .specificForce
        }
    }

    /// How the device is held.
    public enum Hold: String, Sendable, Equatable {
        /// Lying flat, screen up: points with its top edge.
        case flat = "lying flat, pointing with its top edge"
        /// Upright, screen toward the person: points with its back.
        case upright = "upright, pointing with its back"
        /// Upright on its side (landscape on a portrait device): points with its back.
        case sideways = "upright on its side, pointing with its back"
    }

    /// The mount matrix as given.
    public var mount: MountMatrix
    /// Where it came from.
    public var mountOrigin: MountOrigin
    /// What the chip's accelerometer reads.
    public var convention: Convention
    /// How the convention was decided, for the start-up line.
    public var conventionReason: String
    /// The hold.
    public var hold: Hold
    /// Chip → device, a rotation (the mount matrix as the steps above read it).
    public var rotation: Matrix3
    /// Device → mouse3d: rows forward, left, up in the device's axes.
    public var holdMatrix: Matrix3

    /// Chip → mouse3d for the accelerometer (specific force out).
    public var accelerometer: Matrix3 { holdMatrix * rotation * convention.sign }

    /// Chip → mouse3d for the gyroscope.
    public var gyroscope: Matrix3 { holdMatrix * rotation }

    /// The mount matrix to use and where it came from, by precedence: configuration, hwdb, kernel.
    public static func mount(
        configured: MountMatrix?, hwdb: MountMatrix?, kernel: MountMatrix?
    ) -> (MountMatrix, MountOrigin) {
        if let configured { return (configured, .configuration) }
        if let hwdb { return (hwdb, .hwdb) }
        if let kernel { return (kernel, .kernel) }
        return (.identity, .none)
    }

    /// Chip → device for a chip whose accelerometer reads by `convention`.
    static func rotation(_ mount: MountMatrix, origin: MountOrigin, convention: Convention) -> Matrix3 {
        let m = mount.matrix
        guard origin == .hwdb else { return m.determinant < 0 ? m * -1 : m }
        // x and y read the gravity vector after an hwdb matrix: the rotation's rows are theirs
        // negated for a chip that reads the specific force.
        let s = -convention.sign
        return Matrix3(m.r0 * s, m.r1 * s, cross(m.r0, m.r1))
    }

    /// The frame for a sensor whose accelerometer read `reading` (chip axes, any scale, the device
    /// at rest or nearly) at start, with mount `mount` and what the driver's accelerometer usually
    /// reads (`driverConvention`).
    public static func decide(
        reading: SIMD3<Double>, mount: MountMatrix, origin: MountOrigin, driverConvention: Convention
    ) -> SensorFrame {
        // The axis the reading is largest along (the rotation's rows differ between conventions only
        // in sign, so either gives it).
        let r = rotation(mount, origin: origin, convention: .specificForce) * reading
        let size = SIMD3(abs(r.x), abs(r.y), abs(r.z))
        let axis = size.z >= size.y && size.z >= size.x ? 2 : size.y >= size.x ? 1 : 0
        var convention = driverConvention
        var reason = "the driver's"
        if axis == 2 || (axis == 1 && origin != .hwdb) {
            // That axis is up: the reading's sign along it says what the chip reads.
            let along = rotation(mount, origin: origin, convention: .specificForce).row(axis)
            let read = dot(along, reading)
            if read != 0 {
                convention = read > 0 ? .specificForce : .gravity
                reason = "the reading at start"
            }
        } else {
            reason =
                axis == 0
                ? "the driver's (held on its side, the reading cannot tell)"
                : "the driver's (an hwdb matrix fixes y's sign)"
        }
        let rotation = rotation(mount, origin: origin, convention: convention)
        let force = rotation * reading * convention.sign
        var up = SIMD3<Double>.zero
        up[axis] = force[axis] < 0 ? -1 : 1
        let forward: SIMD3<Double> = axis == 2 ? SIMD3(0, 1, 0) : SIMD3(0, 0, -1)
        return SensorFrame(
            mount: mount, mountOrigin: origin, convention: convention, conventionReason: reason,
            hold: axis == 2 ? .flat : axis == 1 ? .upright : .sideways, rotation: rotation,
            holdMatrix: Matrix3(forward, cross(up, forward), up))
    }

    /// One line for the start-up message.
    public var description: String {
        "axes: \(mountOrigin.rawValue); its accelerometer reads the \(convention.rawValue) (\(conventionReason)); held \(hold.rawValue)"
    }
}

extension Matrix3 {
    /// Row `i` (0, 1 or 2).
    public func row(_ i: Int) -> SIMD3<Double> { i == 0 ? r0 : i == 1 ? r1 : r2 }
}
