import Mouse3DCore
import Mouse3DLinux

/// A live sensor: `auto` (the best found), `evdev:PATH`, `iio:NAME` (or `iio:ACCEL+GYRO`),
/// followed through unplugging, with its device profile applied.
public struct LiveSourceKind: SourceKind, Equatable {
    /// Which sensor.
    public var request: MotionSourceRequest

    /// A live source.
    public init(_ request: MotionSourceRequest) { self.request = request }

    public static func parse(_ argument: String) -> LiveSourceKind? {
        if argument == "auto" { return .init(.automatic) }
        if let path = argument.valueAfter("evdev:") { return .init(.evdev(path: path)) }
        if let name = argument.valueAfter("iio:") { return .init(.iio(name: name)) }
        return nil
    }

    public static let forms = ["auto", "evdev:PATH", "iio:NAME"]
    public static let help = "auto (the best sensor found), evdev:/dev/input/eventN, iio:NAME (or iio:ACCEL+GYRO)"
    public var description: String { request.description }
    public var buttonFlagsRefusal: String? { nil }
    public static let recordRefusal: String? = nil

    public func open(_ purpose: SourcePurpose, configuration: inout Configuration, diagnostics: Diagnostics) throws
        -> OpenedSource
    {
        var buttonSettings: ButtonSettings?
        let follower: MotionSourceFollower
        switch purpose {
        case .fuse(_, _, _, let pad):
            follower = try Self.follow(
                request, configuration: &configuration,
                watchingButtons: { c in
                    let settings = try ButtonSettings(c)
                    buttonSettings = settings
                    return settings.map.codes.union(pad.buttons)
                }, axes: pad.axes, hidingPad: pad.hidden, diagnostics: diagnostics)
        case .calibrate, .record:
            follower = try Self.follow(
                request, configuration: &configuration, watchingButtons: { _ in [] }, diagnostics: diagnostics)
        }
        return OpenedSource(
            source: follower, buttons: buttonSettings,
            summary: follower.summary + (follower.buttonDeviceName.map { ", buttons from '\($0)'" } ?? "")
                + (follower.hiddenNodes.isEmpty
                    ? "" : "; hidden from other programs (\(follower.hiddenNodes.joined(separator: ", ")))"),
            isReplay: false, calibrationKey: follower.identity.calibrationKey,
            gamepadAxes: follower.identity.gamepadAxes)
    }

    /// Applies the profile matching the device `request` would open (and says which, or that none
    /// did), then opens it with the resulting settings, ready to follow it through unplugging.
    static func follow(
        _ request: MotionSourceRequest, configuration: inout Configuration,
        watchingButtons: (Configuration) throws -> Set<Int32>,
        axes: Set<Int32> = [], hidingPad: Bool = false, diagnostics: Diagnostics
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
            throw ActionableError(
                "\(configuration.invalid(.sendMountMatrix, "must be nine numbers, rows separated by ';'"))")
        }
        let buttons = try watchingButtons(configuration)
        do {
            return try MotionSourceFollower(
                request, iioPollHertz: poll > 0 ? poll : nil, mountOverride: mountText.flatMap(MountMatrix.init),
                watchingButtons: buttons, axes: axes, hidingPad: hidingPad, report: diagnostics.say)
        } catch {
            throw ActionableError("\(error)")
        }
    }
}

extension String {
    /// What follows `prefix`, when this starts with it and has more.
    func valueAfter(_ prefix: String) -> String? {
        hasPrefix(prefix) && count > prefix.count ? String(dropFirst(prefix.count)) : nil
    }
}
