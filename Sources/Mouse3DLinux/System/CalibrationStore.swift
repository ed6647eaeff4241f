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
    public static func path(for device: String) -> String { DeviceFileStore.path(GyroCalibration.self, for: device) }

    /// The calibration of `device`, or nil (``DeviceFileStore/load(_:device:)``).
    public static func load(device: String) throws(ActionableError) -> GyroCalibration? {
        try DeviceFileStore.load(GyroCalibration.self, device: device)
    }

    /// Stores `calibration`; returns the file's path (``DeviceFileStore/save(_:)``).
    public static func save(_ calibration: GyroCalibration) throws(ActionableError) -> String {
        try DeviceFileStore.save(calibration)
    }
}
