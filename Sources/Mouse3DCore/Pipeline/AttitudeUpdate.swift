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
    /// The source's own clock at the sample it was fused from (ns), when fused in this process: the
    /// motion's time, which a gamepad's rate is measured on.
    public var motionNanoseconds: UInt64?

    /// An update with every field.
    public init(
        stream: StreamLabel, sequence: UInt64, buttons: ButtonState, frame: AttitudeFrame,
        sentNanoseconds: UInt64? = nil,
        receivedNanoseconds: UInt64, motionNanoseconds: UInt64? = nil
    ) {
        self.motionNanoseconds = motionNanoseconds
        self.stream = stream
        self.sequence = sequence
        self.buttons = buttons
        self.frame = frame
        self.sentNanoseconds = sentNanoseconds
        self.receivedNanoseconds = receivedNanoseconds
    }
}
