import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

/// Options for live sensors, shared by `send` and `record`; each overrides the configuration.
struct LiveSourceOptions: ParsableArguments {
    @Option(help: "Read IIO sensors by polling their *_raw values at this rate (Hz) instead of through the buffer.")
    var iioPoll: Double?

    @Option(help: "Mount matrix override for IIO sensors, 'x1,y1,z1;x2,y2,z2;x3,y3,z3' (device = M · chip).")
    var mountMatrix: String?

    func validate() throws {
        if let iioPoll, !(iioPoll.isFinite && iioPoll > 0 && iioPoll <= 2000) {
            throw ValidationError("--iio-poll must be between 0 and 2000 Hz.")
        }
        if let mountMatrix, MountMatrix(mountMatrix) == nil {
            throw ValidationError(
                "--mount-matrix must be nine numbers, rows separated by ';', e.g. '0,1,0;-1,0,0;0,0,1'.")
        }
    }

    func addFlags(to layer: inout ConfigurationLayer) throws {
        if let iioPoll { try layer.set("send.iio_poll", .number(iioPoll), origin: .flag("--iio-poll")) }
        if let mountMatrix { try layer.set("send.mount_matrix", .text(mountMatrix), origin: .flag("--mount-matrix")) }
    }

    /// Applies the profile matching the device `request` would open (and says which, or that none
    /// did), then opens it with the resulting settings, ready to follow it through unplugging.
    static func follow(
        _ request: MotionSourceRequest, configuration: inout Configuration,
        watchingButtons: (Configuration) throws -> Set<Int32>,
        axes: Set<Int32> = [], diagnostics: Diagnostics
    ) throws -> MotionSourceFollower {
        if let info = try? MotionSourceSelector.describe(request) {
            let device = DeviceProfile.Device(name: info.name, id: info.deviceID, sysfsPath: info.sysfsPath)
            if let (profile, reason) = configuration.applyProfile(for: device) {
                diagnostics.say(
                    "profile '\(profile.name)' (\(profile.path):\(profile.line)) for '\(info.name)', matched by \(reason)"
                )
            } else if !configuration.profiles.isEmpty {
                diagnostics.say(
                    "no profile matches '\(info.name)'\(info.deviceID.map { " (\($0))" } ?? ""); using the general settings"
                )
            }
        }
        let poll = configuration[.sendIIOPoll]
        let mountText = configuration[.sendMountMatrix]
        guard mountText == nil || MountMatrix(mountText!) != nil else {
            throw CommandFailure(
                "\(configuration.invalid(.sendMountMatrix, "must be nine numbers, rows separated by ';'"))")
        }
        let buttons = try watchingButtons(configuration)
        do {
            return try MotionSourceFollower(
                request, iioPollHertz: poll > 0 ? poll : nil, mountOverride: mountText.flatMap(MountMatrix.init),
                watchingButtons: buttons,
                axes: axes, report: diagnostics.say)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
