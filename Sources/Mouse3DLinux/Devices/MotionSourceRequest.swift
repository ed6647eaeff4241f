import Mouse3DCore

/// Which motion source to use, as the user names it.
public enum MotionSourceRequest: Sendable, Equatable, CustomStringConvertible {
    /// The best source found: an evdev motion device with both sensors first, then IIO.
    case automatic
    /// The evdev device at this node.
    case evdev(path: String)
    /// The IIO device with this name (or `iio:deviceN`); `ACCEL+GYRO` names two devices to merge.
    case iio(name: String)

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .evdev(let path): "evdev:\(path)"
        case .iio(let name): "iio:\(name)"
        }
    }
}

extension MotionSourceRequest {
    var iioName: String? { if case .iio(let n) = self { n } else { nil } }
}
