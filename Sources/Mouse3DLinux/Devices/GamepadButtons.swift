import CEvdev
import CLinux

/// The buttons of the gamepad that belongs to a motion device (its sibling: same unique id, or the
/// same parent HID device), for clutch, recenter and clicks. Owned by one thread.
public final class GamepadButtons {
    /// The open gamepad device.
    public let device: EvdevDevice
    /// Buttons currently held, by code.
    public private(set) var held: Set<Int32> = []

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
    /// `buttons`; `nil` if there is none.
    public static func sibling(of motionNode: String, having buttons: Set<Int32>) throws -> GamepadButtons? {
        let udev = try Udev()
        let devices = try udev.devices(subsystem: "input").filter { $0.sysname.hasPrefix("event") }
        guard let motion = devices.first(where: { $0.node == motionNode }), let motionInput = motion.parent else { return nil }
        let uniq = motionInput.attribute("uniq") ?? ""
        let family = FileSystem.realPath(motionInput.sysfsPath + "/..")
        for candidate in devices where candidate.node != motionNode {
            guard let input = candidate.parent, let node = candidate.node else { continue }
            let sameUniq = !uniq.isEmpty && input.attribute("uniq") == uniq
            let sameParent = family != nil && FileSystem.realPath(input.sysfsPath + "/..") == family
            guard sameUniq || sameParent, let device = try? EvdevDevice(path: node) else { continue }
            if buttons.contains(where: { device.hasEvent(type: Int32(EV_KEY), code: $0) }) {
                return GamepadButtons(device: device)
            }
        }
        return nil
    }

    init(device: EvdevDevice) { self.device = device }

    /// Reads pending events; returns the button changes (code, pressed) in order. After dropped
    /// events libevdev's resync reports the true state, which is applied the same way.
    public func readChanges() throws -> [(code: Int32, pressed: Bool)] {
        var changes: [(Int32, Bool)] = []
        while true {
            switch try device.next() {
            case .wouldBlock:
                return changes
            case .event(let e), .resynchronised(let e):
                guard e.type == Int32(EV_KEY) else { continue }
                let pressed = e.value != 0
                if pressed != held.contains(e.code) {
                    if pressed { held.insert(e.code) } else { held.remove(e.code) }
                    changes.append((e.code, pressed))
                }
            }
        }
    }
}
