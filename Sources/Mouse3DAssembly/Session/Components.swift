import Mouse3DLinux
import Mouse3DNetwork
import Mouse3DView

// The parts commands run, as components: what each joins the loop with and says at the end.

extension DSUServer: Component {
    public var closingLines: [String] { [summary] }
    public func finish() {}
}

extension ViewServer: Component {
    public var closingLines: [String] { summary.map { [$0] } ?? [] }
    public func finish() {}
}

extension ReceiverAnnouncer: Component {
    public var closingLines: [String] { [] }
    public func finish() {}
}

extension StreamReception {
    /// The reception as a part: attached with the loop, the senders' lines said when it ends,
    /// devices put at rest on every way out.
    public var part: Part {
        Part(
            attach: { self.attach(to: $0) }, closing: { self.finish() },
            finish: { self.outputs.finish() })
    }
}

extension MotionPipeline {
    /// The pipeline as a part: started with the loop, its source's closing lines said, its outputs
    /// put at rest on every way out (devices).
    public var part: Part {
        Part(attach: { self.start(on: $0) }, closing: { self.source.closingSummary }, finish: { self.outputs.finish() })
    }
}
