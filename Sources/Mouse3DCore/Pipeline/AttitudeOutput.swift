/// Where attitudes go: printed lines, a virtual input device, a network stream, a browser view or
/// opentrack (what passes the source's own motion or pad state on is a ``SourceObserver``). Each output is one type conforming to this; a command puts the ones
/// the user asked for in an ``AttitudePipeline``. Called on the event loop's thread only.
///
/// No requirement has a default here: an output conforms through ``AttitudeSink`` (what it does not
/// implement does nothing) or ``ForwardingOutput`` (what it does not implement goes on to the output
/// it wraps). A requirement added later without a default in both fails to compile in every output,
/// instead of being dropped silently by a wrapper.
public protocol AttitudeOutput: AnyObject {
    /// Takes one attitude (called for every update, in order).
    func write(_ update: AttitudeUpdate) throws
    /// The end of a batch of updates read together: a place to flush buffered output.
    func endOfBatch() throws
    /// `stream` fell silent (no update for 500 ms): release what it holds.
    func streamEnded(_ stream: StreamLabel)
    /// When the output next wants ``tick(now:)`` (CLOCK_MONOTONIC ns), if it does.
    var nextDeadline: UInt64? { get }
    /// Called once ``nextDeadline`` has passed.
    func tick(now: UInt64) throws
    /// The source has nothing more (the end of a log): deliver what is held back.
    func sourceEnded() throws
    /// The run is over (a signal, the end, an error): return every device to rest, release it all.
    func finish()
}
