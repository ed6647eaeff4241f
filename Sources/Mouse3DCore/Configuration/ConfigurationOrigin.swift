/// Where a configuration value came from.
public enum ConfigurationOrigin: Sendable, Equatable, CustomStringConvertible {
    case builtIn
    case file(path: String, line: Int)
    case profile(name: String, path: String, line: Int)
    case environment(String)
    case flag(String)

    public var description: String {
        switch self {
        case .builtIn: "default"
        case .file(let path, let line): line > 0 ? "\(path):\(line)" : path  // 0: the file as a whole
        case .profile(let name, let path, let line): "profile '\(name)', " + (line > 0 ? "\(path):\(line)" : path)
        case .environment(let name): "environment \(name)"
        case .flag(let name): "flag \(name)"
        }
    }
}
