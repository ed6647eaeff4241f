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
}

extension LiveMotionSource {
    public var accelerometerRangeMetersPerSecondSquared: Double? { nil }
}

extension EvdevMotionSource: LiveMotionSource {
    public var summary: String {
        "evdev '\(device.name)' at \(device.path)"
            + (axes.map { " (hid-\($0.driver) axes turned into the gamepad frame)" } ?? "")
    }
    public var descriptors: [FileDescriptor] { [descriptor] }
    public var pollIntervalNanoseconds: UInt64? { nil }
    public var isPresent: Bool { FileSystem.exists(device.path) }
}
