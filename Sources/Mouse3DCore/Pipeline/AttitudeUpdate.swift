/// One attitude on its way to the outputs: what the fusion (here, or on the sender) made of the
/// latest motion, with the sender's buttons.
public struct AttitudeUpdate: Sendable {
    /// Its stream.
    public var stream: StreamLabel
    /// Its sequence number within the stream.
    public var sequence: UInt64
    /// Buttons held (clutch, recenter, clicks).
    public var buttons: ButtonState
    /// The attitude, relative to the stream's recentred zero.
    public var frame: AttitudeFrame
    /// The sender's monotonic clock when it sent the frame, if it says (same machine only).
    public var sentNanoseconds: UInt64?
    /// This process's monotonic clock when the attitude arrived or was fused.
    public var receivedNanoseconds: UInt64
    /// The raw sample it was fused from, when fused in this process (outputs that serve raw motion,
    /// such as a DSU server, read it).
    public var sample: MotionSample?
    /// The fusion's gyroscope bias estimate when it made this update (rad/s), when fused in this process.
    public var gyroBiasRadiansPerSecond: SIMD3<Double> = .zero

    /// An update with every field.
    public init(
        stream: StreamLabel, sequence: UInt64, buttons: ButtonState, frame: AttitudeFrame,
        sentNanoseconds: UInt64? = nil,
        receivedNanoseconds: UInt64, sample: MotionSample? = nil, gyroBiasRadiansPerSecond: SIMD3<Double> = .zero
    ) {
        self.gyroBiasRadiansPerSecond = gyroBiasRadiansPerSecond
        self.stream = stream
        self.sequence = sequence
        self.buttons = buttons
        self.frame = frame
        self.sentNanoseconds = sentNanoseconds
        self.receivedNanoseconds = receivedNanoseconds
        self.sample = sample
    }
}
