import RealModule

/// Prediction through short gaps (`receive --extrapolate MS`): while a stream's frames are late, the
/// inner output gets the attitude carried on at the stream's last angular velocity, at the
/// stream's own frame interval, for at most `cap` after the last frame; then it holds still until
/// frames return (and after 500 ms of silence the stream ends as without it). A frame that arrives
/// takes over at once. The angular velocity is the rotation between the last two frames over their
/// send times (arrival times when the sender gives none).
public final class ExtrapolatingOutput: ForwardingOutput {
    /// The output fed.
    public let inner: any AttitudeOutput
    /// The longest prediction after the last frame.
    public let capNanoseconds: UInt64
    /// Updates predicted so far.
    public private(set) var predicted = 0

    struct Track {
        var last: AttitudeUpdate
        var attitude: Quaternion
        var arrived: UInt64
        /// Rotation rate in the reference frame (rad/s): q(t) = exp(ω t) ⊗ q_last.
        var rate = SIMD3<Double>.zero
        /// Mean frame interval (ns).
        var interval: Double = 0
        var nextPrediction: UInt64?
    }

    var tracks: [StreamLabel: Track] = [:]

    /// Feeds `inner`, predicting for at most `capNanoseconds` after each stream's last frame.
    public init(_ inner: any AttitudeOutput, capNanoseconds: UInt64) {
        self.inner = inner
        self.capNanoseconds = capNanoseconds
    }

    static func quaternion(_ f: AttitudeFrame) -> Quaternion {
        Attitude(rollRadians: Double(f.roll), pitchRadians: Double(f.pitch), yawRadians: Double(f.yaw)).quaternion
    }

    public func write(_ update: AttitudeUpdate) throws {
        let q = Self.quaternion(update.frame)
        let now = update.receivedNanoseconds
        if var t = tracks[update.stream] {
            let dt: Double
            if let a = update.sentNanoseconds, let b = t.last.sentNanoseconds, a > b {
                dt = Double(a - b) * 1e-9
            } else {
                dt = Double(now &- t.arrived) * 1e-9
            }
            if dt > 0 && dt < 0.25 {
                var d = q * t.attitude.conjugate
                if d.w < 0 { d = Quaternion(w: -d.w, x: -d.x, y: -d.y, z: -d.z) }
                let s = (d.x * d.x + d.y * d.y + d.z * d.z).squareRoot()
                let angle = 2 * Double.atan2(y: s, x: d.w)
                t.rate = s > 1e-12 ? SIMD3(d.x, d.y, d.z) / s * (angle / dt) : .zero
                t.interval = t.interval == 0 ? dt * 1e9 : 0.9 * t.interval + 0.1 * dt * 1e9
            }
            t.last = update
            t.attitude = q
            t.arrived = now
            t.nextPrediction = t.interval > 0 ? now + UInt64(1.5 * t.interval) : nil
            tracks[update.stream] = t
        } else {
            tracks[update.stream] = Track(last: update, attitude: q, arrived: now)
        }
        try inner.write(update)
    }

    public var nextDeadline: UInt64? {
        var earliest = inner.nextDeadline
        for t in tracks.values {
            if let d = t.nextPrediction { earliest = min(earliest ?? d, d) }
        }
        return earliest
    }

    public func tick(now: UInt64) throws {
        for (label, var t) in tracks {
            guard let due = t.nextPrediction, due <= now else { continue }
            let elapsed = min(now &- t.arrived, capNanoseconds)
            let speed = (t.rate * t.rate).sum().squareRoot()
            let seconds = Double(elapsed) * 1e-9
            let step =
                speed > 0
                ? Quaternion(axis: t.rate / speed, angleRadians: speed * seconds) : Quaternion(w: 1, x: 0, y: 0, z: 0)
            var update = t.last
            update.frame = AttitudeFrame(Attitude(quaternion: step * t.attitude))
            update.receivedNanoseconds = now
            try inner.write(update)
            predicted += 1
            // The next one a frame interval on, while within the cap.
            let next = now + UInt64(max(t.interval, 1e6))
            t.nextPrediction = next &- t.arrived <= capNanoseconds ? next : nil
            tracks[label] = t
        }
        if let d = inner.nextDeadline, d <= now { try inner.tick(now: now) }
    }

    public func streamEnded(_ stream: StreamLabel) {
        tracks.removeValue(forKey: stream)
        inner.streamEnded(stream)
    }
}
