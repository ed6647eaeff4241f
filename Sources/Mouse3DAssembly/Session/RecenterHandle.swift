import Mouse3DLinux

/// A recenter that outputs made before the pipeline can call (the view's button): it recentres the
/// pipeline once one is bound, and does nothing before.
public final class RecenterHandle {
    private weak var pipeline: MotionPipeline?

    /// An unbound handle.
    public init() {}

    /// Recentres through `pipeline` from now on.
    public func bind(_ pipeline: MotionPipeline) { self.pipeline = pipeline }

    /// Recentres, saying `reason` ("the view's button").
    public func recenter(because reason: String) { pipeline?.recenter(because: reason) }
}
