import Mouse3DCore

/// Where gyroscope calibrations live: one small file per device in
/// `$XDG_DATA_HOME/mouse3d/calibration`, else `$HOME/.local/share/mouse3d/calibration`.
public enum CalibrationStore {
    /// The folder.
    public static var directory: String {
        if let xdg = FileSystem.environment("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/mouse3d/calibration" }
        return FileSystem.inHome("/.local/share/mouse3d/calibration")
    }

    /// The file of `device`.
    public static func path(for device: String) -> String { directory + "/" + GyroCalibration.fileName(for: device) }

    /// The calibration of `device`, or nil if there is none. A file that cannot be read or parsed, or
    /// that belongs to another device, is an error that names it and says what to do.
    public static func load(device: String) throws(ActionableError) -> GyroCalibration? {
        let path = path(for: device)
        guard FileSystem.exists(path) else { return nil }
        let calibration: GyroCalibration
        do {
            let text = String(decoding: try FileContents.read(path: path), as: UTF8.self)
            calibration = try GyroCalibration(parsing: text, file: path)
        } catch let error as KeyValueText.ParseError {
            throw ActionableError(
                "bad calibration file \(error)"
                    + ("\(error)".contains("mouse3d calibrate") ? "" : "; delete it or run `mouse3d calibrate` again"))
        } catch {
            throw ActionableError("cannot read the calibration \(path): \(error)")
        }
        guard calibration.device == device else {
            throw ActionableError(
                "\(path) is the calibration of '\(calibration.device)', not of '\(device)'; delete it or run `mouse3d calibrate` again"
            )
        }
        return calibration
    }

    /// Stores `calibration` (atomically, durably), creating the folder; returns the file's path.
    public static func save(_ calibration: GyroCalibration) throws(ActionableError) -> String {
        let path = path(for: calibration.device)
        do {
            try SecretFile.makeDirectory(directory)
            try SecretFile.write(path: path, bytes: Array(calibration.text.utf8))
        } catch {
            throw ActionableError("cannot store the calibration in \(path): \(error)")
        }
        return path
    }
}
