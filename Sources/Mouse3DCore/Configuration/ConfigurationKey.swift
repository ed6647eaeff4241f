/// A setting named by its type: `configuration[.networkPort]` is an `Int64`, and a mistyped name or
/// a wrong type does not compile (a string path was a trap at run time). Every key here is
/// checked against ``ConfigurationSchema`` by a unit test: the same path, a matching kind, and no
/// schema key without one.
public struct ConfigurationKey<Value>: Sendable, CustomStringConvertible {
    /// `section.name`, as in the file.
    public let path: String

    init(_ path: String) { self.path = path }

    public var description: String { path }
}

/// Integers.
extension ConfigurationKey where Value == Int64 {
    public static let networkPort = ConfigurationKey("network.port")
    public static let networkPairingPort = ConfigurationKey("network.pairing_port")
}

/// Switches.
extension ConfigurationKey where Value == Bool {
    public static let networkDiscovery = ConfigurationKey("network.discovery")
    public static let filterMotionBias = ConfigurationKey("filter.motion_bias")
    public static let filterRestBias = ConfigurationKey("filter.rest_bias")
    public static let receiveStats = ConfigurationKey("receive.stats")
    public static let pointerInvertX = ConfigurationKey("pointer.invert_x")
    public static let pointerInvertY = ConfigurationKey("pointer.invert_y")
    public static let pointerSwapAxes = ConfigurationKey("pointer.swap_axes")
    public static let gamepadInvertX = ConfigurationKey("gamepad.invert_x")
    public static let gamepadInvertY = ConfigurationKey("gamepad.invert_y")
}

/// Numbers (an integer in the file reads as one).
extension ConfigurationKey where Value == Double {
    public static let sendRate = ConfigurationKey("send.rate")
    public static let sendIIOPoll = ConfigurationKey("send.iio_poll")
    public static let filterAccelerometerTimeConstant = ConfigurationKey("filter.accelerometer_time_constant")
    public static let filterImpactLimit = ConfigurationKey("filter.impact_limit")
    public static let filterAccelerometerRange = ConfigurationKey("filter.accelerometer_range")
    public static let filterLinearAccelerationRejection = ConfigurationKey("filter.linear_acceleration_rejection")
    public static let filterDisturbanceAngle = ConfigurationKey("filter.disturbance_angle")
    public static let filterDisturbanceTimeConstant = ConfigurationKey("filter.disturbance_time_constant")
    public static let gamepadSensitivity = ConfigurationKey("gamepad.sensitivity")
    public static let gamepadFullSpeed = ConfigurationKey("gamepad.full_speed")
    public static let gamepadInnerDeadZone = ConfigurationKey("gamepad.inner_dead_zone")
    public static let gamepadOuterDeadZone = ConfigurationKey("gamepad.outer_dead_zone")
    public static let gamepadPower = ConfigurationKey("gamepad.power")
    public static let gamepadRestSpeed = ConfigurationKey("gamepad.rest_speed")
    public static let pointerSensitivity = ConfigurationKey("pointer.sensitivity")
    public static let pointerScreenTurn = ConfigurationKey("pointer.screen_turn")
    public static let pointerScreenWidth = ConfigurationKey("pointer.screen_width")
    public static let pointerTightening = ConfigurationKey("pointer.tightening")
    public static let pointerSmoothing = ConfigurationKey("pointer.smoothing")
}

/// Text and choices: nil when empty.
extension ConfigurationKey where Value == String? {
    public static let sendSource = ConfigurationKey("send.source")
    public static let sendClutch = ConfigurationKey("send.clutch")
    public static let sendClutchMode = ConfigurationKey("send.clutch_mode")
    public static let sendRecenter = ConfigurationKey("send.recenter")
    public static let sendPrimary = ConfigurationKey("send.primary")
    public static let sendSecondary = ConfigurationKey("send.secondary")
    public static let sendRecalibrate = ConfigurationKey("send.recalibrate")
    public static let sendMountMatrix = ConfigurationKey("send.mount_matrix")
    public static let receiveListen = ConfigurationKey("receive.listen")
    public static let receiveOutput = ConfigurationKey("receive.output")
    public static let receiveFormat = ConfigurationKey("receive.format")
    public static let pointerGyroSpace = ConfigurationKey("pointer.gyro_space")
    public static let pointerAcceleration = ConfigurationKey("pointer.acceleration")
    public static let gamepadStick = ConfigurationKey("gamepad.stick")
    public static let gamepadGyroSpace = ConfigurationKey("gamepad.gyro_space")
}

/// Lists of text.
extension ConfigurationKey where Value == [String] {
    public static let sendTo = ConfigurationKey("send.to")
}

extension ConfigurationSchema {
    /// Every typed key with its value's type, for the check against ``keys``.
    public static var typedKeys: [(path: String, type: Any.Type)] {
        [
            (ConfigurationKey<Int64>.networkPort.path, Int64.self),
            (ConfigurationKey<Int64>.networkPairingPort.path, Int64.self),
            (ConfigurationKey<Bool>.networkDiscovery.path, Bool.self),
            (ConfigurationKey<Bool>.filterMotionBias.path, Bool.self),
            (ConfigurationKey<Bool>.filterRestBias.path, Bool.self),
            (ConfigurationKey<Bool>.receiveStats.path, Bool.self),
            (ConfigurationKey<Bool>.pointerInvertX.path, Bool.self),
            (ConfigurationKey<Bool>.pointerInvertY.path, Bool.self),
            (ConfigurationKey<Bool>.pointerSwapAxes.path, Bool.self),
            (ConfigurationKey<Bool>.gamepadInvertX.path, Bool.self),
            (ConfigurationKey<Bool>.gamepadInvertY.path, Bool.self),
            (ConfigurationKey<Double>.gamepadSensitivity.path, Double.self),
            (ConfigurationKey<Double>.gamepadFullSpeed.path, Double.self),
            (ConfigurationKey<Double>.gamepadInnerDeadZone.path, Double.self),
            (ConfigurationKey<Double>.gamepadOuterDeadZone.path, Double.self),
            (ConfigurationKey<Double>.gamepadPower.path, Double.self),
            (ConfigurationKey<Double>.gamepadRestSpeed.path, Double.self),
            (ConfigurationKey<Double>.sendRate.path, Double.self),
            (ConfigurationKey<Double>.sendIIOPoll.path, Double.self),
            (ConfigurationKey<Double>.filterAccelerometerTimeConstant.path, Double.self),
            (ConfigurationKey<Double>.filterImpactLimit.path, Double.self),
            (ConfigurationKey<Double>.filterAccelerometerRange.path, Double.self),
            (ConfigurationKey<Double>.filterLinearAccelerationRejection.path, Double.self),
            (ConfigurationKey<Double>.filterDisturbanceAngle.path, Double.self),
            (ConfigurationKey<Double>.filterDisturbanceTimeConstant.path, Double.self),
            (ConfigurationKey<Double>.pointerSensitivity.path, Double.self),
            (ConfigurationKey<Double>.pointerScreenTurn.path, Double.self),
            (ConfigurationKey<Double>.pointerScreenWidth.path, Double.self),
            (ConfigurationKey<Double>.pointerTightening.path, Double.self),
            (ConfigurationKey<Double>.pointerSmoothing.path, Double.self),
            (ConfigurationKey<String?>.sendSource.path, String?.self),
            (ConfigurationKey<String?>.sendClutch.path, String?.self),
            (ConfigurationKey<String?>.sendClutchMode.path, String?.self),
            (ConfigurationKey<String?>.sendRecenter.path, String?.self),
            (ConfigurationKey<String?>.sendPrimary.path, String?.self),
            (ConfigurationKey<String?>.sendSecondary.path, String?.self),
            (ConfigurationKey<String?>.sendRecalibrate.path, String?.self),
            (ConfigurationKey<String?>.sendMountMatrix.path, String?.self),
            (ConfigurationKey<String?>.receiveListen.path, String?.self),
            (ConfigurationKey<String?>.receiveOutput.path, String?.self),
            (ConfigurationKey<String?>.receiveFormat.path, String?.self),
            (ConfigurationKey<String?>.pointerGyroSpace.path, String?.self),
            (ConfigurationKey<String?>.pointerAcceleration.path, String?.self),
            (ConfigurationKey<String?>.gamepadStick.path, String?.self),
            (ConfigurationKey<String?>.gamepadGyroSpace.path, String?.self),
            (ConfigurationKey<[String]>.sendTo.path, [String].self)
        ]
    }
}
