/// How a gamepad driver's motion axes become mouse3d's gamepad frame: x toward the triggers (the
/// direction the controller points), y to the left, z up out of the face when it lies flat
/// (right-handed, the body frame of ROS REP 103). In that frame the attitude's roll, pitch and yaw
/// are the controller's own: yaw about z, pitch about y (nose down positive), roll about x (README
/// "Conventions").
///
/// The kernel documents no common frame for gamepad motion sensors (Documentation/input/gamepad.rst
/// has none; event-codes.rst only says which axes carry acceleration and rate), so each driver
/// keeps its own, and the table below says, per driver, how to turn it. Keyed by the HID driver
/// that made the motion device, not by vendor and product ids, so a controller that another id
/// brings to the same driver (a DualSense Edge, a third-party pad in Switch Pro mode bound to
/// hid-nintendo) is turned the same way.
public struct GamepadMotionAxes: Sendable, Equatable {
    /// The kernel driver's name (`/sys/bus/hid/drivers/NAME`).
    public var driver: String
    /// The controllers it drives, for messages and the README.
    public var models: String
    /// `v_mouse3d = M · v_driver`, for both sensors.
    public var mount: MountMatrix
    /// Why, in the driver's own terms.
    public var reason: String
    /// +1, or −1 where the accelerometer reads the gravity vector: the specific force is this times
    /// the turned reading.
    public var accelerometerSign: Double = 1
    /// Where the driver's MSC_TIMESTAMP comes from (``StampClock``), as its source says.
    public var stamps: StampClock = .unknown

    /// Creates an entry.
    public init(
        driver: String, models: String, mount: MountMatrix, reason: String, accelerometerSign: Double = 1,
        stamps: StampClock = .unknown
    ) {
        self.driver = driver
        self.models = models
        self.mount = mount
        self.reason = reason
        self.accelerometerSign = accelerometerSign
        self.stamps = stamps
    }

    /// A stored setup (`calibrate --axes`) in place of a driver's table.
    public init(_ setup: AxesSetup) {
        self.init(
            driver: "setup", models: setup.device, mount: MountMatrix(matrix: setup.rotation), reason: setup.summary,
            accelerometerSign: setup.accelerometerSign)
    }

    /// The setup that turns this device's own axes the way `correction` (found on samples already
    /// turned by this) then turns them: what `calibrate --axes` stores.
    public func composed(with correction: AxesSetup) -> AxesSetup {
        AxesSetup(
            device: correction.device, rotation: correction.rotation * mount.matrix,
            accelerometerSign: correction.accelerometerSign * accelerometerSign)
    }

    /// The drivers known.
    public static let table: [GamepadMotionAxes] = [
        GamepadMotionAxes(
            driver: "nintendo", models: "Switch Pro Controller, Joy-Con (L), Joy-Con (R)",
            mount: .identity,
            reason:
                "hid-nintendo already reports x toward the triggers, y left, z up (its source says so), and negates the right Joy-Con's y and z, whose sensor is mounted mirrored",
            // joycon_parse_imu_report: a third of a whole-millisecond average of report arrivals.
            stamps: .computed
        ),
        GamepadMotionAxes(
            driver: "playstation", models: "DualSense, DualSense Edge, DualShock 4 (kernel 6.2 and later)",
            mount: sonyMount,
            reason:
                "hid-playstation passes the controller's axes: x right, y up out of the face, z toward the player (ABS_RX pitch, ABS_RY yaw, ABS_RZ roll)",
            // dualsense_parse_report / dualshock4_parse_report: the report's sensor_timestamp
            // (0.33 µs and 5.33 µs units), its differences summed.
            stamps: .counted
        ),
        GamepadMotionAxes(
            driver: "sony", models: "DualShock 4 (kernel 6.1)",
            mount: sonyMount,
            reason: "hid-sony's DualShock 4 motion device has hid-playstation's layout",
            // dualshock4_parse_report: the report's 16-bit timestamp in 5.33 µs units, its
            // differences summed.
            stamps: .counted
        )
    ]

    /// A phone as the phone page is held: in portrait, screen up, pointed with its top edge. The
    /// browser gives motion in the device's frame (x right, y to the top edge, z out of the
    /// screen; W3C DeviceMotion), so forward is y and left is −x. (Not a kernel driver: the phone
    /// source applies it.)
    public static let phone = GamepadMotionAxes(
        driver: "phone", models: "a phone in portrait, screen up, pointed with its top edge",
        mount: MountMatrix(matrix: Matrix3(SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1))),
        reason: "DeviceMotion's frame: x right, y to the top edge, z out of the screen")

    /// A log whose header says its samples are already in mouse3d's frame (``MotionLog/mouse3dFrame``).
    public static let recordedInMouse3DFrame = GamepadMotionAxes(
        driver: "log", models: "a log recorded in mouse3d's frame", mount: .identity,
        reason: "its header says frame:mouse3d")

    /// x right, y up, z toward the player → x forward (−z), y left (−x), z up (y).
    static let sonyMount = MountMatrix(matrix: Matrix3(SIMD3(0, 0, -1), SIMD3(-1, 0, 0), SIMD3(0, 1, 0)))

    /// The entry for `driver`, or nil (its axes are taken as they are).
    public static func forDriver(_ driver: String?) -> GamepadMotionAxes? {
        guard let driver else { return nil }
        return table.first { $0.driver == driver }
    }

    /// The drivers of the originals' USB ids, for a device whose driver cannot be read (sysfs not
    /// visible, as in some containers): Sony's DualShock 4s and DualSenses, Nintendo's pads.
    static let driverOfID: [String: String] = [
        "054c:05c4": "playstation", "054c:09cc": "playstation", "054c:0ba0": "playstation",
        "054c:0ce6": "playstation", "054c:0df2": "playstation",
        "057e:2006": "nintendo", "057e:2007": "nintendo", "057e:2009": "nintendo", "057e:200e": "nintendo"
    ]

    /// The entry for a device driven by `driver`, or, when that is unknown, for its
    /// `vendor:product` (lower-case hex) if it is one of the originals.
    public static func forDevice(driver: String?, id: String?) -> GamepadMotionAxes? {
        if let driver { return forDriver(driver) }
        return forDriver(id.flatMap { driverOfID[$0.lowercased()] })
    }

    /// `sample` with both sensors in mouse3d's gamepad frame.
    @inlinable
    public func apply(_ sample: MotionSample) -> MotionSample {
        var s = sample
        s.angularVelocityRadiansPerSecond = mount.apply(sample.angularVelocityRadiansPerSecond)
        s.specificForceMetersPerSecondSquared =
            accelerometerSign == 1
            ? mount.apply(sample.specificForceMetersPerSecondSquared)
            : mount.apply(sample.specificForceMetersPerSecondSquared) * accelerometerSign
        return s
    }

    /// A calibration measured in mouse3d's gamepad frame, turned back into the driver's axes: the
    /// way calibration files keep it, so a file means the device's own bias whatever mouse3d's
    /// frame (files written before this table existed stay right).
    public func toDriver(_ calibration: GyroCalibration) -> GyroCalibration {
        var c = calibration
        c.biasRadiansPerSecond = mount.matrix.transposed * calibration.biasRadiansPerSecond
        return c
    }

    /// A stored calibration (the driver's axes) in mouse3d's gamepad frame.
    public func fromDriver(_ calibration: GyroCalibration) -> GyroCalibration {
        var c = calibration
        c.biasRadiansPerSecond = mount.apply(calibration.biasRadiansPerSecond)
        return c
    }
}
