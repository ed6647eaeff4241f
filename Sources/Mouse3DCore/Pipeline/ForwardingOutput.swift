/// An output in front of another (pacing, prediction): the calls it does not implement go on to
/// ``inner`` unchanged, so a wrapper states only what it changes.
public protocol ForwardingOutput: AttitudeOutput {
    /// The output it feeds.
    var inner: any AttitudeOutput { get }
}

extension ForwardingOutput {
    public func write(_ update: AttitudeUpdate) throws { try inner.write(update) }
    public func endOfBatch() throws { try inner.endOfBatch() }
    public func streamEnded(_ stream: StreamLabel) { inner.streamEnded(stream) }
    public var nextDeadline: UInt64? { inner.nextDeadline }
    public func tick(now: UInt64) throws { try inner.tick(now: now) }
    public func sourceEnded() throws { try inner.sourceEnded() }
    public func finish() { inner.finish() }
}
