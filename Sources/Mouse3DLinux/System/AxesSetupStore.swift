import Mouse3DCore

/// Where axes setups (`mouse3d calibrate --axes`) live: beside the calibrations, one `.axes` file
/// per device.
public enum AxesSetupStore {
    /// The file of `device`.
    public static func path(for device: String) -> String {
        CalibrationStore.directory + "/" + AxesSetup.fileName(for: device)
    }

    /// The setup of `device`, or nil if there is none. A file that cannot be read or parsed, or that
    /// belongs to another device, is an error that names it and says what to do.
    public static func load(device: String) throws(ActionableError) -> AxesSetup? {
        let path = path(for: device)
        guard FileSystem.exists(path) else { return nil }
        let setup: AxesSetup
        do {
            setup = try AxesSetup(
                parsing: String(decoding: try FileContents.read(path: path), as: UTF8.self), file: path)
        } catch let error as KeyValueText.ParseError {
            throw ActionableError(
                "bad axes file \(error)"
                    + ("\(error)".contains("calibrate --axes")
                        ? "" : "; delete it or run `mouse3d calibrate --axes` again"))
        } catch {
            throw ActionableError("cannot read the axes setup \(path): \(error)")
        }
        guard setup.device == device else {
            throw ActionableError(
                "\(path) is the axes setup of '\(setup.device)', not of '\(device)'; delete it or run `mouse3d calibrate --axes` again"
            )
        }
        return setup
    }

    /// Stores `setup` (atomically, durably); returns the file's path.
    public static func save(_ setup: AxesSetup) throws(ActionableError) -> String {
        let path = path(for: setup.device)
        do {
            try SecretFile.makeDirectory(CalibrationStore.directory)
            try SecretFile.write(path: path, bytes: Array(setup.text.utf8))
        } catch {
            throw ActionableError("cannot store the axes setup in \(path): \(error)")
        }
        return path
    }
}
