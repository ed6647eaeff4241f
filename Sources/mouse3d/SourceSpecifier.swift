import ArgumentParser
import Mouse3DLinux

/// Where motion comes from: `auto`, `evdev:PATH`, `iio:NAME` (or `iio:ACCEL+GYRO`), `replay:FILE`.
enum SourceSpecifier: ExpressibleByArgument, CustomStringConvertible, Equatable {
    case live(MotionSourceRequest)
    case replay(path: String)

    init?(argument: String) {
        func value(_ prefix: String) -> String? {
            argument.hasPrefix(prefix) && argument.count > prefix.count ? String(argument.dropFirst(prefix.count)) : nil
        }
        if argument == "auto" {
            self = .live(.automatic)
        } else if let path = value("replay:") {
            self = .replay(path: path)
        } else if let path = value("evdev:") {
            self = .live(.evdev(path: path))
        } else if let name = value("iio:") {
            self = .live(.iio(name: name))
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .live(let request): request.description
        case .replay(let path): "replay:\(path)"
        }
    }

    static var defaultCompletionKind: CompletionKind { .file(extensions: ["csv"]) }
}
