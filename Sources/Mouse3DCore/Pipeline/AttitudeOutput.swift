/// Names one attitude stream for outputs and messages: a sender's stream on a receiver, or the
/// local fusion in a process that fuses for itself. Made once per stream (not per frame) and
/// compared by identity, so outputs key their per-stream state (a virtual device, a panel) on it
/// cheaply. Immutable.
public final class StreamLabel: Hashable, CustomStringConvertible, Sendable {
    /// Who sends it: the sender's address (`127.0.0.1:5000`), or `local`.
    public let sender: String
    /// The stream's id in hexadecimal (`0` for raw frames, which carry none).
    public let stream: String
    /// How messages name it: `'laptop' (127.0.0.1:5000) stream 2a`.
    public let description: String

    /// A label with these three texts.
    public init(sender: String, stream: String, description: String) {
        self.sender = sender
        self.stream = stream
        self.description = description
    }

    /// The label of a process's own fusion.
    public static let local = StreamLabel(sender: "local", stream: "0", description: "local")

    public static func == (a: StreamLabel, b: StreamLabel) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

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
        stream: StreamLabel, sequence: UInt64, buttons: ButtonState, frame: AttitudeFrame, sentNanoseconds: UInt64? = nil,
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

/// Where attitudes go: printed lines, a virtual input device, a network stream, later a browser
/// view, opentrack or a DSU server. Each output is one type conforming to this; a command puts the
/// ones the user asked for in an ``AttitudePipeline``. Called on the event loop's thread only.
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
    /// A gamepad button of the source went down or up (evdev code), for outputs that pass buttons on.
    func gamepadButton(code: Int32, pressed: Bool)
    /// A gamepad axis of the source moved (evdev `ABS_*` code), for outputs that pass sticks on:
    /// `value` is -1...1 over the device's range, in evdev's directions (right and down positive);
    /// a hat's is -1, 0 or 1.
    func gamepadAxis(code: Int32, value: Float)
    /// The source has nothing more (the end of a log): deliver what is held back.
    func sourceEnded() throws
    /// The run is over (a signal, the end, an error): return every device to rest, release it all.
    func finish()
}

extension AttitudeOutput {
    public func endOfBatch() throws {}
    public func streamEnded(_ stream: StreamLabel) {}
    public var nextDeadline: UInt64? { nil }
    public func tick(now: UInt64) throws {}
    public func gamepadButton(code: Int32, pressed: Bool) {}
    public func gamepadAxis(code: Int32, value: Float) {}
    public func sourceEnded() throws {}
    public func finish() {}
}

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
