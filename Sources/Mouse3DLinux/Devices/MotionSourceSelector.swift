import Mouse3DCore

/// Finds and opens motion sources, and recognises the same device when it comes back.
public enum MotionSourceSelector {
    /// What identifies a device across unplugging: kind, name and unique id.
    public struct Identity: Sendable, Equatable {
        /// evdev or iio.
        public var kind: MotionSourceInfo.Kind
        /// The device name.
        public var name: String
        /// The unique id (MAC address of a controller), if any.
        public var uniqueID: String?
        /// `vvvv:pppp`, the bus vendor and product ids (evdev), if known.
        public var deviceID: String? = nil
        /// The sysfs path (IIO), if known.
        public var sysfsPath: String? = nil
        /// How the device's axes (an evdev driver's, an IIO chip's) become mouse3d's frame, as its
        /// source found (nil: taken as they are).
        public var gamepadAxes: GamepadMotionAxes? = nil

        /// The key its gyroscope calibration is kept under.
        public var calibrationKey: String {
            GyroCalibration.deviceKey(
                kind: kind == .evdev ? "evdev" : "iio", name: name, deviceID: deviceID, uniqueID: uniqueID,
                sysfsPath: sysfsPath)
        }
    }

    /// Every motion source there is.
    public static func list() throws -> [MotionSourceInfo] {
        let udev = try Udev()
        return try MotionSourceEnumerator.evdevDevices(udev: udev) + MotionSourceEnumerator.iioDevices(udev: udev)
    }

    /// The device `request` would open (without opening it), for choosing a configuration profile.
    public static func describe(_ request: MotionSourceRequest) throws -> MotionSourceInfo? {
        let sources = try list()
        switch request {
        case .evdev(let path): return sources.first { $0.node == path }
        case .iio(let name):
            let first = name.split(separator: "+").first.map(String.init) ?? name
            return sources.first { $0.kind == .iio && $0.name == first }
        case .automatic:
            return sources.first(where: { $0.kind == .evdev && $0.hasAccelerometer && $0.hasGyroscope })
                ?? sources.first(where: { $0.kind == .iio && $0.hasGyroscope })
        }
    }

    /// Opens the source `request` names, or, with `identity`, the device that has it (a device that
    /// came back may have a new node). IIO sources read buffered unless `iioPollHertz` is given. A
    /// stored axes setup (`calibrate --axes`) for the device replaces its table, mount and hold
    /// (for IIO, unless a mount matrix is configured).
    public static func open(
        _ request: MotionSourceRequest, identity: Identity? = nil, iioPollHertz: Double? = nil,
        mountOverride: MountMatrix? = nil
    ) throws -> (source: LiveMotionSource, identity: Identity) {
        let opened = try openAsFound(
            request, identity: identity, iioPollHertz: iioPollHertz, mountOverride: mountOverride)
        var found = opened.identity
        // For IIO a configured mount matrix comes first (configuration, stored setup, hwdb, kernel).
        if !(found.kind == .iio && mountOverride != nil),
            let setup = try AxesSetupStore.load(device: found.calibrationKey)
        {
            opened.source.use(setup)
            found.gamepadAxes = opened.source.frameAxes
        }
        return (opened.source, found)
    }

    /// ``open(_:identity:iioPollHertz:mountOverride:)`` without a stored setup.
    static func openAsFound(
        _ request: MotionSourceRequest, identity: Identity? = nil, iioPollHertz: Double? = nil,
        mountOverride: MountMatrix? = nil
    ) throws -> (source: LiveMotionSource, identity: Identity) {
        let sources = try list()
        let mode: IIOMotionSource.Mode = iioPollHertz.map { .polled(hertz: $0) } ?? .buffered
        func openEvdev(_ info: MotionSourceInfo) throws -> (LiveMotionSource, Identity) {
            guard let node = info.node else { throw MotionSourceError(message: "'\(info.name)' has no device node") }
            let source = try EvdevMotionSource(path: node)
            return (
                source,
                Identity(
                    kind: .evdev, name: info.name, uniqueID: info.uniqueID, deviceID: info.deviceID,
                    gamepadAxes: source.axes)
            )
        }
        if let identity {
            guard
                let info = sources.first(where: {
                    $0.kind == identity.kind && $0.name == identity.name && $0.uniqueID == identity.uniqueID
                        && ($0.kind == .iio || ($0.hasAccelerometer && $0.hasGyroscope))
                })
            else {
                throw MotionSourceError(message: "'\(identity.name)' is not there", isAbsence: true)
            }
            if identity.kind == .evdev { return try openEvdev(info) }
            return try openIIO(
                name: request.iioName ?? identity.name, among: sources, mode: mode, mountOverride: mountOverride)
        }
        switch request {
        case .evdev(let path):
            let source = try EvdevMotionSource(path: path)
            let info = sources.first { $0.node == path }
            let ids = source.device.identity
            let deviceID =
                info?.deviceID
                ?? MotionSourceEnumerator.deviceID(vendor: ids.vendor, product: ids.product)
            return (
                source,
                Identity(
                    kind: .evdev, name: source.device.name, uniqueID: info?.uniqueID ?? source.device.uniqueID,
                    deviceID: deviceID, gamepadAxes: source.axes)
            )
        case .iio(let name):
            return try openIIO(name: name, among: sources, mode: mode, mountOverride: mountOverride)
        case .automatic:
            if let best = sources.first(where: { $0.kind == .evdev && $0.hasAccelerometer && $0.hasGyroscope }) {
                return try openEvdev(best)
            }
            if let gyro = sources.first(where: { $0.kind == .iio && $0.hasGyroscope }) {
                return try openIIO(name: gyro.name, among: sources, mode: mode, mountOverride: mountOverride)
            }
            throw MotionSourceError(
                message: sources.isEmpty
                    ? "no motion sensor found (no evdev motion device, no IIO accelerometer or gyroscope); 'mouse3d list' shows what there is"
                    : "no source with both an accelerometer and a gyroscope among: \(sources.map(\.name).joined(separator: ", "))"
            )
        }
    }

    /// Opens an IIO source by name: one device with both sensors, `ACCEL+GYRO`, or a device paired
    /// with the device that has the other sensor and shares its parent's parent (a sensor hub), or
    /// else the only other device that has it.
    static func openIIO(
        name: String, among sources: [MotionSourceInfo], mode: IIOMotionSource.Mode, mountOverride: MountMatrix?
    ) throws -> (LiveMotionSource, Identity) {
        let iio = sources.filter { $0.kind == .iio }
        func find(_ n: String) throws -> MotionSourceInfo {
            guard let info = iio.first(where: { $0.name == n || $0.sysfsPath.hasSuffix("/" + n) }) else {
                throw MotionSourceError(
                    message: "no IIO device named '\(n)'; "
                        + (iio.isEmpty
                            ? "this machine has none ('mouse3d list' shows what it has)"
                            : "there are: \(iio.map(\.name).joined(separator: ", "))"))
            }
            return info
        }
        let parts = name.split(separator: "+").map(String.init)
        let first = try find(parts[0])
        var accel = first.hasAccelerometer ? first : nil
        var gyro = first.hasGyroscope ? first : nil
        if parts.count == 2 {
            let second = try find(parts[1])
            accel = accel ?? (second.hasAccelerometer ? second : nil)
            gyro = gyro ?? (second.hasGyroscope ? second : nil)
        } else if accel == nil || gyro == nil {
            let wantAccel = accel == nil
            let candidates = iio.filter {
                $0.sysfsPath != first.sysfsPath && (wantAccel ? $0.hasAccelerometer : $0.hasGyroscope)
            }
            let family = FileSystem.realPath(first.sysfsPath + "/../..")
            let partner =
                candidates.first { FileSystem.realPath($0.sysfsPath + "/../..") == family }
                ?? (candidates.count == 1 ? candidates[0] : nil)
            if wantAccel { accel = partner } else { gyro = partner }
        }
        guard let accel, let gyro else {
            let lacking = accel == nil ? "an accelerometer" : "a gyroscope"
            throw MotionSourceError(
                message: parts.count == 2
                    ? "neither '\(parts[0])' nor '\(parts[1])' has \(lacking)"
                    : "IIO '\(name)' lacks \(lacking) and no partner device was found; name both as iio:ACCEL+GYRO")
        }
        let hwdb = accel.hwdbMountMatrix.flatMap(MountMatrix.init)
        let source = try IIOMotionSource(
            accelerometer: IIODevice(sysfsPath: accel.sysfsPath), gyroscope: IIODevice(sysfsPath: gyro.sysfsPath),
            mode: mode, mountOverride: mountOverride, hwdbMountMatrix: hwdb)
        return (
            source,
            Identity(
                kind: .iio, name: first.name, uniqueID: nil, sysfsPath: first.sysfsPath, gamepadAxes: source.axes)
        )
    }
}
