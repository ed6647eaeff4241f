import ArgumentParser

/// How fast a recorded log is played: a factor of real time, or as fast as possible.
enum ReplaySpeed: ExpressibleByArgument, Equatable, CustomStringConvertible {
    case factor(Double)
    case maximum

    init?(argument: String) {
        if argument == "max" {
            self = .maximum
        } else if let f = Double(argument), f.isFinite, f > 0 {
            self = .factor(f)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .factor(let f): "\(f)"
        case .maximum: "max"
        }
    }
}
