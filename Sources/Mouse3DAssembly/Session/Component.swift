import Mouse3DLinux

/// A part of a running command: it joins the event loop, says what it did when the loop ends, and
/// is finished on every way out (devices at rest). A ``Session`` runs its parts in the order added:
/// attached in that order, their closing lines said in that order.
public protocol Component: AnyObject {
    /// Joins `loop` (its descriptors and timers); nothing is read before the loop runs.
    func attach(to loop: EventLoop)
    /// What it says when the loop has ended.
    var closingLines: [String] { get }
    /// Called on every way out of the session, after the closing lines.
    func finish()
}
