/// Which gamepad buttons (by `BTN_*` code) do what in a pipeline: the clutch that enables motion,
/// recenter, and the buttons sent as primary and secondary clicks.
public struct GamepadButtonMap: Sendable, Equatable {
    /// Enables motion (held or toggled, as the fusion's clutch mode says).
    public var clutch: Int32?
    /// Makes the current attitude zero (and is held in the updates while pressed).
    public var recenter: Int32?
    /// Sent as the primary click.
    public var primary: Int32?
    /// Sent as the secondary click.
    public var secondary: Int32?
    /// Starts measuring the gyroscope bias anew (put the controller down).
    public var recalibrate: Int32?

    /// A map of these buttons (none by default).
    public init(
        clutch: Int32? = nil, recenter: Int32? = nil, primary: Int32? = nil, secondary: Int32? = nil,
        recalibrate: Int32? = nil
    ) {
        self.clutch = clutch
        self.recenter = recenter
        self.primary = primary
        self.secondary = secondary
        self.recalibrate = recalibrate
    }

    /// The codes to watch.
    public var codes: Set<Int32> { Set([clutch, recenter, primary, secondary, recalibrate].compactMap { $0 }) }

    /// What a button change did that is worth telling the user.
    public enum Effect: Sendable, Equatable {
        case none
        /// The attitude was made zero.
        case recentred
        /// Measuring the gyroscope bias started.
        case calibrating
    }

    /// Applies one button change to `fusion`.
    public func apply(code: Int32, pressed: Bool, to fusion: inout MotionFusion) -> Effect {
        var effect = Effect.none
        if clutch == code { fusion.clutch(pressed: pressed) }
        if recenter == code {
            fusion.set(.recenter, held: pressed)
            if pressed {
                fusion.recenter()
                effect = .recentred
            }
        }
        if primary == code { fusion.set(.primary, held: pressed) }
        if secondary == code { fusion.set(.secondary, held: pressed) }
        if recalibrate == code && pressed {
            fusion.startCalibration()
            effect = .calibrating
        }
        return effect
    }
}
