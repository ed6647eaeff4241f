import CLinux
import Mouse3DCore
import SystemPackage

/// A live evdev motion device (gamepad or handheld IMU): reads its events and yields samples.
/// Owned by one thread.
public final class EvdevMotionSource {
    /// The open device.
    public let device: EvdevDevice
    private var decoder: EvdevMotionDecoder
    /// The driver's sample period against the arrival times' (nil until enough samples).
    public var timestampEstimate: SamplePeriodEstimator.Estimate? { decoder.timestampEstimate }
    /// The ratio the driver's stamps are corrected by (1: left as they are).
    public var timestampRatio: Double { decoder.timestampRatio }
    /// Where the driver's stamps come from (``StampClock``).
    public var stamps: StampClock { decoder.stamps }
    /// The driver's step the per-step ratio was last taken from, in seconds.
    public var correctedStepSeconds: Double { Double(decoder.correctedStep) * 1e-6 }
    /// The driver's last step that agreed with the arrivals, in seconds, when the last one that
    /// did not was set to it.
    public var agreedStepSeconds: Double? {
        decoder.setToAgreedStep ? decoder.agreedStep.map { Double($0) * 1e-6 } : nil
    }
    /// Times the kernel dropped events and libevdev resynchronised.
    public private(set) var resynchronisations = 0
    /// How the axes of the HID driver that made the device (`playstation`, `nintendo`, ...) become
    /// mouse3d's gamepad frame; nil: taken as they are.
    public private(set) var axes: GamepadMotionAxes?

    /// Turns the driver's axes by a stored setup (`calibrate --axes`) instead of the driver table.
    public func use(_ setup: AxesSetup) { axes = GamepadMotionAxes(setup) }

    /// Opens `path`; it must be a motion device (INPUT_PROP_ACCELEROMETER with ABS_X..ABS_RZ).
    public init(path: String) throws {
        do {
            device = try EvdevDevice(path: path)
        } catch {
            throw MotionSourceError(message: PermissionAdvice.message(for: error, node: path))
        }
        var axes: [EvdevMotionDecoder.Axis] = []
        var values: [Int32] = []
        // Accelerometer axes (the first three) are in units per g: the range is their smallest reach
        // from the centre.
        var reach = Double.infinity
        for code in EvdevMotionDecoder.Code.motionAxes {
            guard let info = device.absoluteAxis(code), info.resolution > 0 else {
                throw MotionSourceError(
                    message:
                        "\(path) ('\(device.name)') is not a motion device: axis \(code) is missing or has no resolution"
                )
            }
            axes.append(.init(center: Double(info.minimum + info.maximum) / 2, resolution: Double(info.resolution)))
            values.append(Int32(info.value))
            if axes.count <= 3 { reach = min(reach, Double(info.maximum - info.minimum) / 2 / Double(info.resolution)) }
        }
        guard device.hasProperty(Int32(INPUT_PROP_ACCELEROMETER)) else {
            throw MotionSourceError(
                message: "\(path) ('\(device.name)') is not a motion device (no INPUT_PROP_ACCELEROMETER)")
        }
        let ids = device.identity
        self.axes = GamepadMotionAxes.forDevice(
            driver: Self.driver(of: path), id: MotionSourceEnumerator.deviceID(vendor: ids.vendor, product: ids.product)
        )
        // Kept, corrected step by step or by the window's ratio, as the driver's source says.
        decoder = EvdevMotionDecoder(axes: axes, initialValues: values, stamps: self.axes?.stamps ?? .unknown)
        accelerometerRangeMetersPerSecondSquared =
            reach.isFinite && reach > 0 ? reach * standardGravityMetersPerSecondSquared : nil
    }

    /// The accelerometer's range per axis from the device's absinfo (maximum less the centre, over
    /// the resolution in units per g), in m/s².
    public let accelerometerRangeMetersPerSecondSquared: Double?

    /// The name of the driver bound to the device behind event node `path` (its parent HID
    /// device's `driver` link in sysfs), or nil. `path` may be a link to the node (udev's
    /// `/dev/input/by-id/...`).
    public static func driver(of path: String) -> String? {
        guard let node = FileSystem.realPath(path), node.hasPrefix("/dev/input/event"),
            let name = node.split(separator: "/").last,
            let target = FileSystem.realPath("/sys/class/input/\(name)/device/device/driver")
        else { return nil }
        return target.split(separator: "/").last.map(String.init)
    }

    /// The descriptor to poll for readability.
    public var descriptor: FileDescriptor { device.descriptor }

    /// Reads every pending event; returns the samples they complete (possibly none).
    public func readSamples() throws -> [MotionSample] {
        var samples: [MotionSample] = []
        while true {
            let result: EvdevDevice.ReadResult
            do {
                result = try device.next()
            } catch {
                throw MotionSourceError(message: PermissionAdvice.message(for: error, node: device.path))
            }
            switch result {
            case .wouldBlock:
                return samples
            case .event(let e):
                if let s = decoder.feed(
                    type: e.type, code: e.code, value: e.value, eventTimeNanoseconds: e.timeNanoseconds)
                {
                    samples.append(axes?.apply(s) ?? s)
                }
            case .resynchronised(let e):
                if e.type == Int32(EV_SYN) && e.code == Int32(SYN_DROPPED) {
                    resynchronisations += 1
                    decoder.resynchronising()
                } else {
                    _ = decoder.feed(
                        type: e.type, code: e.code, value: e.value, eventTimeNanoseconds: e.timeNanoseconds,
                        resynchronised: true)
                }
            }
        }
    }
}
