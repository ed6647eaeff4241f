import Mouse3DLinux

/// A part made of closures, for what is not a component itself (a pipeline and its source).
public final class Part: Component {
    private let attaching: (EventLoop) -> Void
    private let closing: () -> [String]
    private let finishing: () -> Void

    /// A part: `attach` joins the loop, `closing` says what it did, `finish` puts it at rest.
    public init(
        attach: @escaping (EventLoop) -> Void = { _ in }, closing: @escaping () -> [String] = { [] },
        finish: @escaping () -> Void = {}
    ) {
        attaching = attach
        self.closing = closing
        finishing = finish
    }

    public func attach(to loop: EventLoop) { attaching(loop) }
    public var closingLines: [String] { closing() }
    public func finish() { finishing() }
}
