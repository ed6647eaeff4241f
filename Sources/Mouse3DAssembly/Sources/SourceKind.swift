import Mouse3DCore
import Mouse3DLinux

/// A kind of motion source (`auto`/`evdev:`/`iio:`, `replay:`, `phone`): how its specifier is
/// written, what it can be used for, and how it opens for each use. ``SourceCatalog`` lists the
/// kinds; a new one is a type of this protocol and a line there.
public protocol SourceKind: CustomStringConvertible, Sendable {
    /// The kind written as `argument`, or nil when it is not this kind.
    static func parse(_ argument: String) -> Self?
    /// How its specifiers are written, for messages ("replay:LOG.csv").
    static var forms: [String] { get }
    /// How `--source` help describes it ("replay:LOG.csv"; the first form with a word on what it is).
    static var help: String { get }
    /// Why the button flags (--clutch, --recenter, ...) do not go with it; nil: it reads a
    /// controller's buttons.
    var buttonFlagsRefusal: String? { get }
    /// Why `record` does not take it; nil: it can be recorded.
    static var recordRefusal: String? { get }
    /// Opens it for `purpose`; `configuration` gets the device's profile applied.
    func open(_ purpose: SourcePurpose, configuration: inout Configuration, diagnostics: Diagnostics) throws
        -> OpenedSource
}
