/// The gestures users ask for most: a clutch that enables motion (while held, toggled, or except
/// while held), and
/// recentering (the current attitude becomes zero).
public struct MotionGestures: Sendable {
    /// How the clutch button works.
    public enum ClutchMode: String, Sendable, CaseIterable {
        /// Motion is enabled while the button is held.
        case hold
        /// Each press switches motion on or off.
        case toggle
        /// Motion is enabled except while the button is held (a ratchet: hold it, bring the
        /// controller back, let go; JoyShockMapper's GYRO_OFF).
        case holdOff = "hold-off"
    }

    /// The clutch mode, or `nil` when no clutch is configured (motion always enabled).
    public let clutchMode: ClutchMode?
    /// Whether motion is enabled now.
    public private(set) var motionEnabled: Bool
    /// The attitude that counts as zero.
    public private(set) var reference = Quaternion.identity
    private var clutchHeld = false

    /// Gestures with the given clutch mode (nil: no clutch).
    public init(clutchMode: ClutchMode?) {
        self.clutchMode = clutchMode
        motionEnabled = clutchMode == nil || clutchMode == .holdOff
    }

    /// The clutch button went down (`true`) or up.
    public mutating func clutch(pressed: Bool) {
        guard let clutchMode, pressed != clutchHeld else { return }
        clutchHeld = pressed
        switch clutchMode {
        case .hold: motionEnabled = pressed
        case .toggle: if pressed { motionEnabled.toggle() }
        case .holdOff: motionEnabled = !pressed
        }
    }

    /// Makes `attitude` the new zero.
    public mutating func recenter(at attitude: Attitude) {
        reference = attitude.quaternion
    }

    /// `attitude` relative to the reference: `q_ref⁻¹ ⊗ q` (identity right after recentering).
    public func relative(_ attitude: Attitude) -> Attitude {
        Attitude(quaternion: reference.conjugate * attitude.quaternion)
    }
}
