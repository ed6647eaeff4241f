import RealModule

/// Absolute pose on joystick axes, in the style of opentrack's virtual joystick: ABS_RX roll,
/// ABS_RY pitch, ABS_RZ yaw, each ±180° on ±32767 (pitch, limited to ±90°, spans ±16384);
/// ABS_X, ABS_Y, ABS_Z (translation) stay at 0.
public enum JoystickPose {
    /// The axis range.
    public static let range: ClosedRange<Int32> = -32767...32767

    /// The value of an angle in radians on a ±180° axis.
    public static func value(radians: Double) -> Int32 {
        let v = (radians / .pi * 32767).rounded()
        return Int32(max(-32767, min(32767, v)))
    }
}
