/// Watches what the source itself does, beside the attitudes fused from it: the outputs that pass a
/// device's raw motion or its pad's state on (a DSU server, a virtual gamepad). An
/// ``AttitudePipeline`` calls its observers on the event loop's thread, in a process that fuses
/// (`run`, `send`): a fused sample after its update has gone to the outputs.
public protocol SourceObserver: AnyObject {
    /// `sample` was fused at `nowNanoseconds` (CLOCK_MONOTONIC); `gyroBias` is the fusion's bias
    /// estimate after it (rad/s).
    func sampleFused(_ sample: MotionSample, gyroBias: SIMD3<Double>, nowNanoseconds: UInt64)
    /// A gamepad button of the source went down or up (evdev code).
    func gamepadButton(code: Int32, pressed: Bool)
    /// A gamepad axis of the source moved (evdev `ABS_*` code): `value` is -1...1 over the device's
    /// range, in evdev's directions (right and down positive); a hat's is -1, 0 or 1.
    func gamepadAxis(code: Int32, value: Float)
}
