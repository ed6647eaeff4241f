import Mouse3DCore

/// A small file kept per device beside the others in ``CalibrationStore/directory``: a gyroscope
/// calibration or an axes setup.
public protocol DeviceFile {
    /// The device it belongs to.
    var device: String { get }
    /// The file's text.
    var text: String { get }
    /// Reads the file's text; errors name the file and line.
    init(parsing text: String, file: String) throws(KeyValueText.ParseError)
    /// The file name kept under for `device`.
    static func fileName(for device: String) -> String
    /// How messages name the file ("calibration") and what it holds ("the calibration").
    static var fileWord: String { get }
    static var contents: String { get }
    /// The command that writes it again.
    static var command: String { get }
}

extension GyroCalibration: DeviceFile {
    public static let fileWord = "calibration", contents = "the calibration", command = "mouse3d calibrate"
}

extension AxesSetup: DeviceFile {
    public static let fileWord = "axes", contents = "the axes setup", command = "mouse3d calibrate --axes"
}
