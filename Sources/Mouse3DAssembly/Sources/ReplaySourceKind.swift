import Mouse3DCore
import Mouse3DLinux

/// A motion log, `replay:LOG.csv`: played at a speed (looped if asked) to be fused, read whole to
/// be calibrated on; not recorded (it is a log already).
public struct ReplaySourceKind: SourceKind, Equatable {
    /// The log's path.
    public var path: String

    /// A replayed log.
    public init(path: String) { self.path = path }

    public static func parse(_ argument: String) -> ReplaySourceKind? {
        argument.valueAfter("replay:").map(ReplaySourceKind.init(path:))
    }

    public static let forms = ["replay:LOG.csv"]
    public static let help = "replay:LOG.csv"
    public var description: String { "replay:\(path)" }
    public var buttonFlagsRefusal: String? {
        "--clutch, --recenter, --primary, --secondary and --recalibrate read a live controller's buttons; a replayed log has none (SIGUSR1 still recenters)."
    }
    public static let recordRefusal: String? = "record reads live sensors; a replay:LOG source is already a log."

    public func open(_ purpose: SourcePurpose, configuration: inout Configuration, diagnostics: Diagnostics) throws
        -> OpenedSource
    {
        let key = GyroCalibration.logKey(path: path)
        switch purpose {
        case .fuse(let speed, let loops, _, _):
            let log = try openMotionLog(path: path)
            let playback = MotionLogPlayback(file: log, loops: loops, speed: speed)
            // A log's own setup (`calibrate --axes` on it), kept under its path.
            if let setup = try AxesSetupStore.load(device: key) {
                return OpenedSource(
                    source: TurnedSampleSource(playback, by: setup), buttons: nil,
                    summary: description + ", \(setup.summary)", isReplay: true, calibrationKey: key,
                    gamepadAxes: GamepadMotionAxes(setup))
            }
            return OpenedSource(
                source: playback, buttons: nil,
                summary: description + (log.frame == MotionLog.mouse3dFrame ? " (in mouse3d's frame)" : ""),
                isReplay: true, calibrationKey: key,
                gamepadAxes: log.frame == MotionLog.mouse3dFrame ? .recordedInMouse3DFrame : nil)
        case .calibrate:
            let playback = MotionLogPlayback(
                samples: try loadMotionLog(path: path).samples, path: path, loops: false, speed: nil)
            return OpenedSource(
                source: playback, buttons: nil, summary: playback.summary, isReplay: true, calibrationKey: key)
        case .record:
            throw ActionableError(Self.recordRefusal ?? "")
        }
    }
}
