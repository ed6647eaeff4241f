import CLinux
import Mouse3DCore

/// The kinds of virtual device `receive --uinput` makes.
public enum UinputMode: String, CaseIterable, Sendable {
    /// A gyro mouse: REL_X/REL_Y and BTN_LEFT/RIGHT/MIDDLE.
    case pointer
    /// Absolute pose on ABS_X..ABS_RZ, with BTN_TRIGGER/BTN_THUMB for the clicks.
    case joystick
    /// A 6-DoF device: tilt deflections as rates on ABS_RX/RY/RZ (ABS_X/Y/Z stay 0), BTN_0/BTN_1.
    case spacemouse
    /// A gamepad for games, xpad's wired Xbox 360 pad to the code (``Xbox360Layout``): the real
    /// pad's buttons, triggers, d-pad and sticks, and the gyroscope's turn on one stick.
    case gamepad
}
