import Mouse3DCore

/// What outputs need of the gamepad next to a live controller's motion device, beyond its
/// configured buttons: more keys and axes to read, and whether to hide it from other programs
/// while mouse3d runs (the virtual gamepad stands in for it).
public struct PadNeeds: Sendable, Equatable {
    /// Key codes (`BTN_*`) to read.
    public var buttons: Set<Int32>
    /// Axis codes (`ABS_*`) to read.
    public var axes: Set<Int32>
    /// Take the controller's event nodes for mouse3d alone (EVIOCGRAB).
    public var hidden: Bool

    /// Needs of these keys and axes, the pad hidden or not.
    public init(buttons: Set<Int32> = [], axes: Set<Int32> = [], hidden: Bool = false) {
        self.buttons = buttons
        self.axes = axes
        self.hidden = hidden
    }

    /// Both needs at once.
    public func union(_ other: PadNeeds) -> PadNeeds {
        PadNeeds(buttons: buttons.union(other.buttons), axes: axes.union(other.axes), hidden: hidden || other.hidden)
    }
}

extension PadNeeds {
    /// What the virtual gamepad (`--uinput gamepad`) needs: every key and axis of the real pad it
    /// passes on (``Xbox360Layout``'s, with the digital triggers and d-pad keys some pads have
    /// instead), and the pad hidden from other programs, so that a game sees one controller.
    public static let virtualGamepad: PadNeeds = {
        typealias C = Xbox360Layout.Code
        let keys = Xbox360Layout.keys + [C.btnTL2, C.btnTR2, C.btnDpadUp, C.btnDpadDown, C.btnDpadLeft, C.btnDpadRight]
        return PadNeeds(
            buttons: Set(keys.map(Int32.init)), axes: Set(Xbox360Layout.axes.map { Int32($0.code) }), hidden: true)
    }()
}
