import Mouse3DCore
import SystemPackage

/// A live motion device that the event loop drives: when a descriptor is readable (or the poll
/// interval passes), ``readSamples()``. Owned by one thread.
public protocol LiveMotionSource: AnyObject {
    /// What it is, for messages: kind, name and node.
    var summary: String { get }
    /// Descriptors to wait on (empty for a polled source).
    var descriptors: [FileDescriptor] { get }
    /// For polled sources: how often to read, in nanoseconds.
    var pollIntervalNanoseconds: UInt64? { get }
    /// Reads what is available and returns the samples made from it.
    func readSamples() throws -> [MotionSample]
    /// Whether the device is still there (false once it has been unplugged).
    var isPresent: Bool { get }
    /// The accelerometer's range per axis in m/s², where the device says it (nil: unknown).
    var accelerometerRangeMetersPerSecondSquared: Double? { get }
    /// Lines to say when reading ends (what its timestamps were found to be, say).
    var closingSummary: [String] { get }
    /// Turns its own axes by a stored setup (`calibrate --axes`) from now on.
    func use(_ setup: AxesSetup)
    /// How its own axes become mouse3d's frame (nil: taken as they are).
    var frameAxes: GamepadMotionAxes? { get }
}

extension LiveMotionSource {
    public var accelerometerRangeMetersPerSecondSquared: Double? { nil }
    public var closingSummary: [String] { [] }
}

extension EvdevMotionSource: LiveMotionSource {
    public var frameAxes: GamepadMotionAxes? { axes }
    /// The driver's timestamps against the kernel's arrival times (``SamplePeriodEstimator``).
    public var closingSummary: [String] {
        // The kernel holds a few dozen reports of a motion device's events for a reader; one that
        // fell further behind (a starved machine) lost those reports, and the report after the gap
        // carried the motion over it (EvdevMotionDecoder.resynchronising).
        let dropped =
            resynchronisations == 0
            ? []
            : [
                "events: the kernel dropped this device's events \(resynchronisations) time\(resynchronisations == 1 ? "" : "s") (mouse3d fell behind reading them): each gap was bridged at the rate after it, timed by the device's clock where it has one (gaps over 0.25 s were not counted)"
            ]
        return dropped + timestampLines
    }

    /// What the driver's timestamps were found to be, and what was done with them.
    private var timestampLines: [String] {
        guard let e = timestampEstimate else {
            return ["timestamps: too few samples to check the driver's against their arrival"]
        }
        let ratio = fixed(e.ratio, 4)
        let periods =
            "\(fixed(e.driverPeriod * 1e3, 3)) ms by the driver, \(fixed(e.arrivalPeriod * 1e3, 3)) ms by arrival"
        switch stamps {
        case .counted:
            return [
                "timestamps: the controller's own clock, kept (ratio \(ratio) ± \(fixed(e.spread, 4)) to their arrival; \(periods))"
            ]
        case .computed:
            let now =
                "the driver's steps are computed, not counted (hid-nintendo's average of arrivals): now \(fixed(correctedStepSeconds * 1e3, 3)) ms against \(fixed(e.samplePeriod * 1e3, 3)) ms a sample by arrival"
            if timestampRatio == 1 { return ["timestamps: \(now): they agree"] }
            if let agreed = agreedStepSeconds {
                return [
                    "timestamps: \(now): set to its last step that agreed, \(fixed(agreed * 1e3, 3)) ms"
                ]
            }
            return ["timestamps: \(now): each step corrected by its own ratio (now \(fixed(timestampRatio, 4)))"]
        case .unknown:
            return [
                timestampRatio == 1
                    ? "timestamps: the driver's agree with their arrival (ratio \(ratio) ± \(fixed(e.spread, 4)); \(periods))"
                    : "timestamps: the driver's run \(ratio) of their arrival's (± \(fixed(e.spread, 4)); \(periods)); corrected by \(fixed(timestampRatio, 4))"
            ]
        }
    }

    public var summary: String {
        "evdev '\(device.name)' at \(device.path)"
            + (axes.map {
                $0.driver == "setup" ? " (\($0.reason))" : " (hid-\($0.driver) axes turned into the gamepad frame)"
            }
                ?? "")
    }
    public var descriptors: [FileDescriptor] { [descriptor] }
    public var pollIntervalNanoseconds: UInt64? { nil }
    public var isPresent: Bool { FileSystem.exists(device.path) }
}
