import ArgumentParser
import Mouse3DAssembly

/// Where motion comes from, as given on the command line: one of ``SourceCatalog``'s kinds (`auto`,
/// `evdev:PATH`, `iio:NAME`, `replay:FILE`, `phone[:[ADDR:]PORT]`).
struct SourceSpecifier: ExpressibleByArgument, CustomStringConvertible {
    let kind: any SourceKind

    init(_ kind: any SourceKind) { self.kind = kind }

    init?(argument: String) {
        guard let kind = SourceCatalog.parse(argument) else { return nil }
        self.kind = kind
    }

    var description: String { kind.description }

    static var defaultCompletionKind: CompletionKind { .file(extensions: ["csv"]) }
}
