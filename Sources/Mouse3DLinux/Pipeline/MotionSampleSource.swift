import Mouse3DCore

/// Where a pipeline's motion samples come from: a live device followed through hotplug
/// (``MotionSourceFollower``) or a recorded log played in time (``MotionLogPlayback``). A new kind of
/// source is one new type conforming to this, registering what it waits on with the event loop.
/// Owned by the loop's thread.
public protocol MotionSampleSource: AnyObject {
    /// What it reads, for messages.
    var summary: String { get }
    /// Registers with `loop` and from then on hands what arrives to `sink`.
    func start(on loop: EventLoop, sink: MotionSampleSink)
    /// Lines to say when the run ends (what a source serving a network refused, say).
    var closingSummary: [String] { get }
    /// What a person calls the button `code` of this source (nil: its `BTN_*` name will do).
    func buttonName(_ code: Int32) -> String?
}

extension MotionSampleSource {
    public var closingSummary: [String] { [] }
    public func buttonName(_ code: Int32) -> String? { nil }
}
