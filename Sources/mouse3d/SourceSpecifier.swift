import ArgumentParser
import Mouse3DCore
import Mouse3DLinux
import Mouse3DPhone

/// Where motion comes from: `auto`, `evdev:PATH`, `iio:NAME` (or `iio:ACCEL+GYRO`), `replay:FILE`,
/// `phone[:[ADDR:]PORT]` (a phone's browser; every address and port 24933 by default).
enum SourceSpecifier: ExpressibleByArgument, CustomStringConvertible, Equatable {
    case live(MotionSourceRequest)
    case replay(path: String)
    case phone(address: String, port: UInt16)

    init?(argument: String) {
        func value(_ prefix: String) -> String? {
            argument.hasPrefix(prefix) && argument.count > prefix.count ? String(argument.dropFirst(prefix.count)) : nil
        }
        if argument == "auto" {
            self = .live(.automatic)
        } else if argument == "phone" {
            self = .phone(address: "0.0.0.0", port: PhoneSource.defaultPort)
        } else if let spec = value("phone:") {
            guard let parsed = WebAccessPolicy.parse(spec) else { return nil }
            // A bare port means every address (the phone is another machine).
            self = .phone(address: spec.contains(":") ? parsed.address : "0.0.0.0", port: parsed.port)
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
        case .phone(let address, let port): "phone:\(address.contains(":") ? "[\(address)]" : address):\(port)"
        }
    }

    static var defaultCompletionKind: CompletionKind { .file(extensions: ["csv"]) }
}
