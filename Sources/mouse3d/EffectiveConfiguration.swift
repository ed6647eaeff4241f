import Mouse3DConfig
import Mouse3DCore
import Mouse3DLinux

/// The configuration a command runs with: built-in defaults, /etc/mouse3d/config.toml,
/// $XDG_CONFIG_HOME/mouse3d/config.toml, MOUSE3D_* environment variables, then the flags given.
/// Any problem stops the command before it does anything (nothing is half applied).
enum EffectiveConfiguration {
    /// The system directory (MOUSE3D_SYSTEM_CONFIG_DIR moves it, for tests and packagers).
    static var systemDirectory: String { FileSystem.environment("MOUSE3D_SYSTEM_CONFIG_DIR") ?? "/etc/mouse3d" }

    /// The files read, lowest precedence first.
    static var filePaths: [String] {
        [systemDirectory + "/config.toml", FileSystem.userConfigurationDirectory + "/config.toml"]
    }

    /// Loads every layer; throws a one-line message naming file, line and key.
    static func load(flags: ConfigurationLayer = ConfigurationLayer()) throws -> Configuration {
        do {
            let files = try filePaths.compactMap { path throws(ConfigurationProblem) in
                try ConfigurationFile.load(path: path)
            }
            let environment = try ConfigurationLayer.environment(FileSystem.environmentVariables)
            return Configuration(files: files, overrides: [environment, flags])
        } catch let problem as ConfigurationProblem {
            throw CommandFailure("bad configuration: \(problem)")
        }
    }

    /// The layer of a command's flags, which `body` adds, a schema problem turned into a one-line message.
    static func flags(_ body: (inout ConfigurationLayer) throws -> Void) throws -> ConfigurationLayer {
        var layer = ConfigurationLayer()
        do {
            try body(&layer)
        } catch let problem as ConfigurationProblem {
            throw CommandFailure("\(problem)")
        }
        return layer
    }
}
