import Mouse3DCore

/// Loads and stores ``DeviceFile``s: one per device, written atomically and durably.
public enum DeviceFileStore {
    /// The file of `device`.
    public static func path<File: DeviceFile>(_ kind: File.Type, for device: String) -> String {
        CalibrationStore.directory + "/" + File.fileName(for: device)
    }

    /// The file of `device`, or nil if there is none. A file that cannot be read or parsed, or that
    /// belongs to another device, is an error that names it and says what to do.
    public static func load<File: DeviceFile>(_ kind: File.Type, device: String) throws(ActionableError) -> File? {
        let path = path(kind, for: device)
        guard FileSystem.exists(path) else { return nil }
        let file: File
        do {
            file = try File(parsing: String(decoding: try FileContents.read(path: path), as: UTF8.self), file: path)
        } catch let error as KeyValueText.ParseError {
            throw ActionableError(
                "bad \(File.fileWord) file \(error)"
                    + ("\(error)".contains(File.command) ? "" : "; delete it or run `\(File.command)` again"))
        } catch {
            throw ActionableError("cannot read \(File.contents) \(path): \(error)")
        }
        guard file.device == device else {
            throw ActionableError(
                "\(path) is \(File.contents) of '\(file.device)', not of '\(device)'; delete it or run `\(File.command)` again"
            )
        }
        return file
    }

    /// Stores `file` (atomically, durably), creating the folder; returns the file's path.
    public static func save<File: DeviceFile>(_ file: File) throws(ActionableError) -> String {
        let path = path(File.self, for: file.device)
        do {
            try SecretFile.makeDirectory(CalibrationStore.directory)
            try SecretFile.write(path: path, bytes: Array(file.text.utf8))
        } catch {
            throw ActionableError("cannot store \(File.contents) in \(path): \(error)")
        }
        return path
    }
}
