import Mouse3DCore

/// Where axes setups (`mouse3d calibrate --axes`) live: beside the calibrations, one `.axes` file
/// per device.
public enum AxesSetupStore {
    /// The file of `device`.
    public static func path(for device: String) -> String { DeviceFileStore.path(AxesSetup.self, for: device) }

    /// The setup of `device`, or nil (``DeviceFileStore/load(_:device:)``).
    public static func load(device: String) throws(ActionableError) -> AxesSetup? {
        try DeviceFileStore.load(AxesSetup.self, device: device)
    }

    /// Stores `setup`; returns the file's path (``DeviceFileStore/save(_:)``).
    public static func save(_ setup: AxesSetup) throws(ActionableError) -> String {
        try DeviceFileStore.save(setup)
    }
}
