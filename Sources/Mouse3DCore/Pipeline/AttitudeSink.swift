/// An output at the end of the pipeline (it prints, drives a device, sends): the calls it does not
/// implement do nothing.
public protocol AttitudeSink: AttitudeOutput {}

extension AttitudeSink {
    public func endOfBatch() throws {}
    public func streamEnded(_ stream: StreamLabel) {}
    public var nextDeadline: UInt64? { nil }
    public func tick(now: UInt64) throws {}
    public func sourceEnded() throws {}
    public func finish() {}
}
