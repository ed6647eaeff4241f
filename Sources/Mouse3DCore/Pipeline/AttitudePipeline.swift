/// The outputs of one run, fed in the order they were added, and the observers of its source.
/// Owned by the event loop's thread.
public final class AttitudePipeline {
    /// The outputs.
    public let outputs: [any AttitudeOutput]
    /// What watches the source: `observers` given, and every output that is one (also behind
    /// wrappers, such as pacing).
    public let observers: [any SourceObserver]
    /// The outputs again, for the calls made every frame and every wake-up (see ``OutputChain``).
    private let chain: OutputChain?
    private var finished = false

    /// A pipeline feeding `outputs`, with `observers` watching the source.
    public init(outputs: [any AttitudeOutput] = [], observers: [any SourceObserver] = []) {
        self.outputs = outputs
        self.observers = outputs.compactMap(Self.observer(in:)) + observers
        chain = outputs.reversed().reduce(nil) { next, output in OutputChain(output, next: next) }
    }

    /// The observer an output is, or wraps.
    private static func observer(in output: any AttitudeOutput) -> (any SourceObserver)? {
        if let observer = output as? any SourceObserver { return observer }
        if let wrapper = output as? any ForwardingOutput { return observer(in: wrapper.inner) }
        return nil
    }

    /// Hands `update` to every output.
    public func write(_ update: AttitudeUpdate) throws { try chain?.write(update) }

    /// Ends a batch at every output.
    public func endOfBatch() throws { try chain?.endOfBatch() }

    /// Tells every output that `stream` fell silent.
    public func streamEnded(_ stream: StreamLabel) {
        for output in outputs { output.streamEnded(stream) }
    }

    /// The earliest deadline of any output.
    public var nextDeadline: UInt64? { chain?.earliestDeadline(before: nil) }

    /// Ticks the outputs whose deadline has passed.
    public func tick(now: UInt64) throws {
        for output in outputs {
            if let d = output.nextDeadline, d <= now { try output.tick(now: now) }
        }
    }

    /// Tells every observer that `sample` was fused.
    public func sampleFused(_ sample: MotionSample, gyroBias: SIMD3<Double>, nowNanoseconds: UInt64) {
        for observer in observers { observer.sampleFused(sample, gyroBias: gyroBias, nowNanoseconds: nowNanoseconds) }
    }

    /// Hands a gamepad button change to every observer.
    public func gamepadButton(code: Int32, pressed: Bool) {
        for observer in observers { observer.gamepadButton(code: code, pressed: pressed) }
    }

    /// Hands a gamepad axis change to every observer.
    public func gamepadAxis(code: Int32, value: Float) {
        for observer in observers { observer.gamepadAxis(code: code, value: value) }
    }

    /// Tells every output that the source ended.
    public func sourceEnded() throws {
        for output in outputs { try output.sourceEnded() }
    }

    /// Finishes every output, once (later calls do nothing).
    public func finish() {
        guard !finished else { return }
        finished = true
        for output in outputs { output.finish() }
    }
}

/// The outputs as a chain of constants, each node calling its output, then the next node. An output
/// read out of an array (a constant one too) was retained and released around every call, a pair of
/// atomic operations per output per frame; one reached through `let` properties of an object the
/// caller holds is not (callgrind counts, `objdump`).
private final class OutputChain {
    let output: any AttitudeOutput
    let next: OutputChain?

    init(_ output: any AttitudeOutput, next: OutputChain?) {
        self.output = output
        self.next = next
    }

    func write(_ update: AttitudeUpdate) throws {
        try output.write(update)
        try next?.write(update)
    }

    func endOfBatch() throws {
        try output.endOfBatch()
        try next?.endOfBatch()
    }

    /// The earliest of `earliest` and the deadlines of this output and those after it.
    func earliestDeadline(before earliest: UInt64?) -> UInt64? {
        var earliest = earliest
        if let d = output.nextDeadline { earliest = min(earliest ?? d, d) }
        return next?.earliestDeadline(before: earliest) ?? earliest
    }
}
