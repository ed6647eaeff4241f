import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

/// `--uinput MODE`, shared by run and receive: an entry of the output catalog. The mode in force
/// is the command's (for receive, `receive.output` may name it); the pointer's and the gyro stick's
/// tuning are the shared groups' (``OutputOptions``).
struct UinputOption: OutputEntry {
    @Option(
        help:
            "Drive a virtual input device (receive: one per sender): pointer (gyro mouse), joystick (absolute pose), spacemouse (6-DoF rates for spacenavd) or gamepad (an Xbox 360 pad for games: run passes the real pad through and hides it, the gyroscope turns a stick)."
    )
    var uinput: UinputMode?

    func isAsked(_ request: OutputOptions.Request) -> Bool { request.uinput != nil }

    func make(_ context: OutputContext) throws -> PluggedOutput? {
        let request = context.request
        guard let mode = request.uinput else { return nil }
        let device = UinputOutput(
            mode: mode, mapping: request.mapping, gyroStick: request.gyroStick, withheld: request.withheld,
            diagnostics: context.diagnostics)
        return PluggedOutput(
            device, kind: .device, name: "virtual \(mode.rawValue)", announcedName: mode.rawValue,
            retune: { device.update(mapping: $0.mapping, gyroStick: $0.gyroStick) })
    }
}
