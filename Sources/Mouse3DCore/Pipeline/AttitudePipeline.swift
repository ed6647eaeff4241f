/// The outputs of one run, fed in the order they were added. Owned by the event loop's thread.
public final class AttitudePipeline {
    /// The outputs.
    public let outputs: [any AttitudeOutput]
    private var finished = false

    /// A pipeline feeding `outputs`.
    public init(outputs: [any AttitudeOutput] = []) {
        self.outputs = outputs
    }

    /// Hands `update` to every output.
    public func write(_ update: AttitudeUpdate) throws {
        for output in outputs { try output.write(update) }
    }

    /// Ends a batch at every output.
    public func endOfBatch() throws {
        for output in outputs { try output.endOfBatch() }
    }

    /// Tells every output that `stream` fell silent.
    public func streamEnded(_ stream: StreamLabel) {
        for output in outputs { output.streamEnded(stream) }
    }

    /// The earliest deadline of any output.
    public var nextDeadline: UInt64? {
        var earliest: UInt64?
        for output in outputs {
            if let d = output.nextDeadline { earliest = min(earliest ?? d, d) }
        }
        return earliest
    }

    /// Ticks the outputs whose deadline has passed.
    public func tick(now: UInt64) throws {
        for output in outputs {
            if let d = output.nextDeadline, d <= now { try output.tick(now: now) }
        }
    }

    /// Hands a gamepad button change to every output.
    public func gamepadButton(code: Int32, pressed: Bool) {
        for output in outputs { output.gamepadButton(code: code, pressed: pressed) }
    }

    /// Hands a gamepad axis change to every output.
    public func gamepadAxis(code: Int32, value: Float) {
        for output in outputs { output.gamepadAxis(code: code, value: value) }
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
