import CEvdev
import CLinux

/// The buttons of the gamepad that belongs to a motion device (its sibling: same unique id, or the
/// same parent HID device), for clutch, recenter and clicks; and its sticks and hat, for outputs
/// that pass them on. Owned by one thread.
public final class GamepadButtons {
    /// The open gamepad device.
    public let device: EvdevDevice
    /// Buttons currently held, by code.
    public private(set) var held: Set<Int32> = []
    /// The watched axes this device has, with their ranges.
    public let axes: [Int32: AbsoluteAxisInfo]
    private var axisValues: [Int32: Int] = [:]

    /// What changed.
    public enum Change: Equatable {
        /// A button went down or up.
        case button(code: Int32, pressed: Bool)
        /// An axis moved: -1...1 over its range (``AbsoluteAxisInfo/normalized(_:)``).
        case axis(code: Int32, value: Float)
    }

    /// The `KEY_*`/`BTN_*` code of a name such as `BTN_TL` (libevdev's table), or `nil`.
    public static func code(named name: String) -> Int32? {
        let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
        return code < 0 ? nil : code
    }

    /// The name of a key code, such as `BTN_TL`.
    public static func name(of code: Int32) -> String {
        libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)).map { String(cString: $0) } ?? "KEY_\(code)"
    }

    /// Opens the sibling gamepad of the motion device at `motionNode` that has at least one of
    /// `buttons`; `nil` if there is none. Of `axes`, those it has are read too.
    public static func sibling(of motionNode: String, having buttons: Set<Int32>, axes: Set<Int32> = []) throws
        -> GamepadButtons?
    {
        for node in try siblingNodes(of: motionNode) {
            guard let device = try? EvdevDevice(path: node) else { continue }
            if buttons.contains(where: { device.hasEvent(type: Int32(EV_KEY), code: $0) }) {
                return GamepadButtons(device: device, axes: axes)
            }
        }
        return nil
    }

    /// The event nodes of the controller the motion device at `motionNode` belongs to, but for that
    /// one: its gamepad, a DualSense's touchpad (same unique id, or the same parent HID device).
    public static func siblingNodes(of motionNode: String) throws -> [String] {
        let udev = try Udev()
        let devices = try udev.devices(subsystem: "input").filter { $0.sysname.hasPrefix("event") }
        guard let motion = devices.first(where: { $0.node == motionNode }), let motionInput = motion.parent else {
            return []
        }
        let uniq = motionInput.attribute("uniq") ?? ""
        let family = FileSystem.realPath(motionInput.sysfsPath + "/..")
        return devices.compactMap { candidate in
            guard candidate.node != motionNode, let input = candidate.parent, let node = candidate.node else {
                return nil
            }
            let sameUniq = !uniq.isEmpty && input.attribute("uniq") == uniq
            let sameParent = family != nil && FileSystem.realPath(input.sysfsPath + "/..") == family
            return sameUniq || sameParent ? node : nil
        }
    }

    init(device: EvdevDevice, axes: Set<Int32> = []) {
        self.device = device
        var found: [Int32: AbsoluteAxisInfo] = [:]
        for code in axes { if let info = device.absoluteAxis(code) { found[code] = info } }
        self.axes = found
    }

    /// The watched axes at rest, as changes, for when the gamepad goes away: sticks and hats
    /// centred, triggers (ABS_Z, ABS_RZ, ABS_GAS, ABS_BRAKE: 0 is released, by
    /// Documentation/input/gamepad.rst) at the bottom of their range, so that nothing an output
    /// passed on stays pulled.
    public var restingAxes: [Change] {
        axes.keys.sorted().map { .axis(code: $0, value: Self.triggers.contains($0) ? -1 : 0) }
    }

    /// The axes a gamepad's triggers are on (Documentation/input/gamepad.rst): at rest at their
    /// minimum. The others (sticks, hats) rest at their middle.
    static let triggers: Set<Int32> = [Int32(ABS_Z), Int32(ABS_RZ), Int32(ABS_GAS), Int32(ABS_BRAKE)]

    /// An axis's value as a change: sticks and hats with their middle exactly 0.
    private static func normalized(_ code: Int32, _ raw: Int, _ info: AbsoluteAxisInfo) -> Float {
        triggers.contains(code) ? info.normalized(raw) : info.normalizedCentred(raw)
    }

    /// The watched axes' positions now, as changes (for outputs starting with the device).
    public func currentAxes() -> [Change] {
        axes.keys.sorted().compactMap { code in
            guard let info = device.absoluteAxis(code) else { return nil }
            axisValues[code] = info.value
            return .axis(code: code, value: Self.normalized(code, info.value, info))
        }
    }

    /// Reads pending events; returns the button and watched axis changes in order. After dropped
    /// events libevdev's resync reports the true state, which is applied the same way.
    public func readChanges() throws -> [Change] {
        var changes: [Change] = []
        while true {
            let next: EvdevDevice.ReadResult
            do {
                next = try device.next()
            } catch {
                // Gone after changes were read (the kernel releases a gamepad's keys as it removes
                // it, then the read fails): those are handed on, or a release would be lost with
                // the error; the next read, on a descriptor still hung up, reports it.
                if changes.isEmpty { throw error }
                return changes
            }
            switch next {
            case .wouldBlock:
                return changes
            case .event(let e), .resynchronised(let e):
                if e.type == Int32(EV_KEY) {
                    let pressed = e.value != 0
                    if pressed != held.contains(e.code) {
                        if pressed { held.insert(e.code) } else { held.remove(e.code) }
                        changes.append(.button(code: e.code, pressed: pressed))
                    }
                } else if e.type == Int32(EV_ABS), let info = axes[e.code], axisValues[e.code] != Int(e.value) {
                    axisValues[e.code] = Int(e.value)
                    changes.append(.axis(code: e.code, value: Self.normalized(e.code, Int(e.value), info)))
                }
            }
        }
    }
}
