import Mouse3DConfig
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import SystemPackage

/// Where the checks look: the real places by default, others in tests.
public struct DoctorEnvironment: Sendable {
    public var uinputPath = "/dev/uinput"
    /// Where udev rules are installed.
    public var ruleDirectories = [
        "/etc/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d", "/usr/local/lib/udev/rules.d"
    ]
    /// Where systemd user units are installed.
    public var unitDirectories: [String]
    /// The configuration files, lowest precedence first.
    public var configurationFiles: [String]
    /// The user's configuration directory (identity, pairings).
    public var configurationDirectory: String
    /// Where running processes are listed.
    public var processDirectory = "/proc"
    /// Whether to ask Avahi and probe paired receivers (the network checks).
    public var checksNetwork = true
    /// Whether to list motion sources.
    public var checksSources = true

    public init(configurationFiles: [String], configurationDirectory: String) {
        self.configurationFiles = configurationFiles
        self.configurationDirectory = configurationDirectory
        let home = FileSystem.homeDirectory
        let dataHome = FileSystem.environment("XDG_DATA_HOME") ?? home + "/.local/share"
        unitDirectories = [
            FileSystem.userConfigurationDirectory.replacingSuffix("/mouse3d", with: "") + "/systemd/user",
            dataHome + "/systemd/user", "/etc/systemd/user", "/usr/lib/systemd/user", "/usr/local/lib/systemd/user"
        ]
    }
}
