import Mouse3DCore

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

    /// The device went away and is back (reopened): the next samples start a new timeline.
    public var resumed: () -> Void

    /// A sink of these six.
    public init(
        samples: @escaping ([MotionSample]) throws -> Void,
        button: @escaping (Int32, Bool) throws -> Void = { _, _ in },
        axis: @escaping (Int32, Float) throws -> Void = { _, _ in }, ended: @escaping () throws -> Void = {},
        accelerometerRange: @escaping (Double?) -> Void = { _ in }, resumed: @escaping () -> Void = {}
    ) {
        self.samples = samples
        self.button = button
        self.axis = axis
        self.ended = ended
        self.accelerometerRange = accelerometerRange
        self.resumed = resumed
    }
}
