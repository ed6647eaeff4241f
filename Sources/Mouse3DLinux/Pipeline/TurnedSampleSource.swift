import Mouse3DCore

/// Another source's samples turned by a stored axes setup (`calibrate --axes`): a replayed log's
/// own setup, kept under its path as its calibration is.
public final class TurnedSampleSource: MotionSampleSource {
    private let inner: MotionSampleSource
    private let setup: AxesSetup

    /// `inner`'s samples, turned by `setup`.
    public init(_ inner: MotionSampleSource, by setup: AxesSetup) {
        self.inner = inner
        self.setup = setup
    }

    public var summary: String { inner.summary + ", \(setup.summary)" }

    public func start(on loop: EventLoop, sink: MotionSampleSink) {
        var turned = sink
        let setup = setup
        turned.samples = { try sink.samples($0.map(setup.apply)) }
        inner.start(on: loop, sink: turned)
    }

    public var closingSummary: [String] { inner.closingSummary }

    public func buttonName(_ code: Int32) -> String? { inner.buttonName(code) }
}
