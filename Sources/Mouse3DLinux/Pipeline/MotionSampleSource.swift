import Mouse3DCore

/// Where a pipeline's motion samples come from: a live device followed through hotplug
/// (``MotionSourceFollower``) or a recorded log played in time (``MotionLogPlayback``). A new kind of
/// source is one new type conforming to this, registering what it waits on with the event loop.
/// Owned by the loop's thread.
public protocol MotionSampleSource: AnyObject {
    /// What it reads, for messages.
    var summary: String { get }
    /// Registers with `loop` and from then on hands what arrives to `sink`.
    func start(on loop: EventLoop, sink: MotionSampleSink)
    /// Lines to say when the run ends (what a source serving a network refused, say).
    var closingSummary: [String] { get }
}

extension MotionSampleSource {
    public var closingSummary: [String] { [] }
}

/// What a ``MotionSampleSource`` delivers to.
public struct MotionSampleSink {
    /// Samples in time order (called once per batch read).
    public var samples: ([MotionSample]) throws -> Void
    /// A watched gamepad button went down (`true`) or up (`false`), by `BTN_*` code.
    public var button: (_ code: Int32, _ pressed: Bool) throws -> Void
    /// A watched gamepad axis moved, by `ABS_*` code: -1...1 over its range (a hat: -1, 0, 1).
    public var axis: (_ code: Int32, _ value: Float) throws -> Void
    /// The source has nothing more (the end of a log not looped).
    public var ended: () throws -> Void

    /// The device now read says its accelerometer's range per axis, in m/s² (nil: it does not say);
    /// called when a device is opened or comes back.
    public var accelerometerRange: (Double?) -> Void

    /// A sink of these five.
    public init(
        samples: @escaping ([MotionSample]) throws -> Void, button: @escaping (Int32, Bool) throws -> Void = { _, _ in },
        axis: @escaping (Int32, Float) throws -> Void = { _, _ in }, ended: @escaping () throws -> Void = {},
        accelerometerRange: @escaping (Double?) -> Void = { _ in }
    ) {
        self.samples = samples
        self.button = button
        self.axis = axis
        self.ended = ended
        self.accelerometerRange = accelerometerRange
    }
}
