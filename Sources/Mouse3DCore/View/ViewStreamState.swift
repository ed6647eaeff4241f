/// What the live view shows of one stream: its latest attitude and the receiver's figures.
public struct ViewStreamState: Sendable, Equatable {
    /// The stream's label (sender and stream id, or "local").
    public var label: String
    /// Updates seen.
    public var frames: UInt64
    /// The latest sequence number.
    public var sequence: UInt64
    /// The latest attitude, in degrees.
    public var rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double
    /// Time of the latest update, in monotonic nanoseconds.
    public var receivedNanoseconds: UInt64
    /// Sequence numbers skipped (lost on the way, as far as the view can tell) and updates that came
    /// after a later one (reordered).
    public var lost: UInt64 = 0, reordered: UInt64 = 0
    /// Time between updates as they arrived, over the last 10 s (jitter shows as spread).
    public var intervals = ViewHistogram()
    /// Send→arrival latency over the last 10 s, where the receiver measures it (`--latency`: same machine).
    public var latencies = ViewHistogram()

    /// A state.
    public init(
        label: String, frames: UInt64, sequence: UInt64, rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double,
        receivedNanoseconds: UInt64
    ) {
        self.label = label
        self.frames = frames
        self.sequence = sequence
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.yawDegrees = yawDegrees
        self.receivedNanoseconds = receivedNanoseconds
    }

    /// Takes the next update of this stream: counts a gap in the sequence as lost and an update older
    /// than the latest as reordered; the attitude shown is the latest to arrive.
    /// `sentNanoseconds` is the sender's send time on this machine's clock, when the receiver measures latency.
    public mutating func take(
        sequence: UInt64, roll: Double, pitch: Double, yaw: Double, nanoseconds: UInt64, sentNanoseconds: UInt64? = nil
    ) {
        frames += 1
        if nanoseconds > receivedNanoseconds { intervals.record(nanoseconds - receivedNanoseconds, at: nanoseconds) }
        if let sent = sentNanoseconds, sent <= nanoseconds { latencies.record(nanoseconds - sent, at: nanoseconds) }
        if sequence > self.sequence {
            lost += sequence - self.sequence - 1
        } else {
            reordered += 1
            if lost > 0 { lost -= 1 }  // it was counted lost when the later one came
        }
        self.sequence = max(self.sequence, sequence)
        rollDegrees = roll
        pitchDegrees = pitch
        yawDegrees = yaw
        receivedNanoseconds = nanoseconds
    }

    /// The JSON object the page reads.
    public var json: String {
        "{\"label\":\(JSONText.string(label)),\"frames\":\(frames),\"seq\":\(sequence),"
            + "\"roll\":\(rollDegrees),\"pitch\":\(pitchDegrees),\"yaw\":\(yawDegrees),\"t\":\(receivedNanoseconds),"
            + "\"lost\":\(lost),\"reordered\":\(reordered),\"interval\":\(intervals.json),\"latency\":\(latencies.total == 0 ? "null" : latencies.json)}"
    }
}
