import ArgumentParser

/// Where motion comes from: `replay:FILE` for now.
enum SourceSpecifier: ExpressibleByArgument, CustomStringConvertible {
    case replay(path: String)

    init?(argument: String) {
        if argument.hasPrefix("replay:"), argument.count > "replay:".count {
            self = .replay(path: String(argument.dropFirst("replay:".count)))
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .replay(let path): "replay:\(path)"
        }
    }

    static var defaultCompletionKind: CompletionKind { .file(extensions: ["csv"]) }
}
