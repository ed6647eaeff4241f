/// A device profile: settings that apply when the sending device matches.
public struct DeviceProfile: Sendable, Equatable {
    public var name: String
    /// Exact device name (as `mouse3d list` shows it).
    public var matchName: String?
    /// `vvvv:pppp`, the USB/Bluetooth vendor and product ids in hex.
    public var matchID: String?
    /// A prefix of the device's sysfs path.
    public var matchPath: String?
    /// Its settings (sender-side keys only), with the lines they were on.
    public var values: [String: (value: ConfigurationValue, line: Int)]
    public var path: String
    public var line: Int

    public init(
        name: String, matchName: String?, matchID: String?, matchPath: String?,
        values: [String: (value: ConfigurationValue, line: Int)], path: String, line: Int
    ) {
        self.name = name
        self.matchName = matchName
        self.matchID = matchID
        self.matchPath = matchPath
        self.values = values
        self.path = path
        self.line = line
    }

    public static func == (a: DeviceProfile, b: DeviceProfile) -> Bool {
        a.name == b.name && a.matchName == b.matchName && a.matchID == b.matchID && a.matchPath == b.matchPath
            && a.path == b.path
            && a.values.mapValues(\.value) == b.values.mapValues(\.value)
    }

    /// What identifies a device for matching.
    public struct Device: Sendable {
        public var name: String
        /// `vvvv:pppp` if known.
        public var id: String?
        public var sysfsPath: String
        public init(name: String, id: String?, sysfsPath: String) {
            self.name = name
            self.id = id
            self.sysfsPath = sysfsPath
        }
    }

    /// Why this profile matches `device`, or nil. Every match key given must match.
    public func match(_ device: Device) -> String? {
        var reasons: [String] = []
        if let matchName {
            guard device.name == matchName else { return nil }
            reasons.append("name '\(matchName)'")
        }
        if let matchID {
            guard device.id?.lowercased() == matchID.lowercased() else { return nil }
            reasons.append("id \(matchID)")
        }
        if let matchPath {
            guard device.sysfsPath.hasPrefix(matchPath) else { return nil }
            reasons.append("sysfs path \(matchPath)")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
    }
}
