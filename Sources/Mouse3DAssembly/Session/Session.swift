import Mouse3DLinux

/// A running command: the event loop (made first, before any part starts a thread, so that the
/// signals it takes are blocked in every thread), the diagnostics, and the parts it runs.
public final class Session {
    /// The loop every part joins.
    public let loop: EventLoop
    /// Where every part speaks.
    public let diagnostics: Diagnostics
    private var parts: [any Component] = []

    /// When the command says why it stopped.
    public enum StopLine {
        /// Only on SIGINT or SIGTERM (not when the work ended: a log's end).
        case onSignal
        /// Whatever ended it.
        case always
    }

    /// A session taking `signals`; `quiet`: only errors are said.
    public init(signals: EventLoop.Signals, quiet: Bool) throws {
        loop = try EventLoop(signals: signals)
        diagnostics = Diagnostics(quiet: quiet)
    }

    /// Adds a part; parts are attached, and their closing lines said, in the order added.
    public func add(_ part: any Component) { parts.append(part) }

    /// Adds a part if there is one.
    public func add(_ part: (any Component)?) { if let part { parts.append(part) } }

    /// Attaches the parts, runs the loop until a signal or a stop, says the stop line and the
    /// parts' closing lines, and finishes every part on every way out.
    @discardableResult
    public func run(stopLine: StopLine) throws -> EventLoop.Ending {
        defer { for part in parts { part.finish() } }
        for part in parts { part.attach(to: loop) }
        let ending = try loop.run()
        switch stopLine {
        case .always: diagnostics.say("stopping on \(ending.name)")
        case .onSignal: if case .signal = ending { diagnostics.say("stopping on \(ending.name)") }
        }
        for part in parts {
            for line in part.closingLines { diagnostics.say(line) }
        }
        return ending
    }
}
