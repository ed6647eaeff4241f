import ArgumentParser
import Mouse3DAssembly
import Mouse3DConfig
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d config`: the effective configuration, checking a file, the documented defaults.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the effective configuration, check a configuration file, or print the documented defaults.",
            subcommands: [Show.self, Check.self, Defaults.self])

        /// `mouse3d config show`.
        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract:
                    "Print every setting in effect and where it came from (default, file:line, environment, profile).")

            @Option(help: "Also apply the profile that matches this device name (as `mouse3d list` shows it).")
            var device: String?

            @Option(help: "With --device: its vendor:product id in hex, e.g. 054c:0ce6.")
            var deviceID: String?

            func run() throws {
                var configuration = try EffectiveConfiguration.load()
                for path in EffectiveConfiguration.filePaths {
                    print("# \(path): \(FileSystem.fileExists(path) ? "read" : "not present")")
                }
                if let device {
                    let matched = configuration.applyProfile(
                        for: DeviceProfile.Device(name: device, id: deviceID, sysfsPath: ""))
                    print(
                        "# device '\(device)': "
                            + (matched.map { "profile '\($0.profile.name)' (matched by \($0.reason))" }
                                ?? "no profile matches"))
                }
                for line in configuration.listing { print(line) }
                for profile in configuration.profiles {
                    let match = [
                        profile.matchName.map { "name '\($0)'" }, profile.matchID.map { "id \($0)" },
                        profile.matchPath.map { "sysfs path \($0)*" }
                    ]
                    .compactMap { $0 }.joined(separator: ", ")
                    print(
                        "# profile '\(profile.name)' (\(profile.path):\(profile.line)) for \(match): "
                            + profile.values.keys.sorted().map { "\($0) = \(profile.values[$0]!.value)" }.joined(
                                separator: ", "))
                }
            }
        }

        /// `mouse3d config check FILE`.
        struct Check: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Check a configuration file: syntax, keys, types and ranges.")

            @Argument(help: "The file to check.")
            var file: String

            func run() throws {
                do {
                    guard let layer = try ConfigurationFile.load(path: file) else {
                        throw CommandFailure("\(file): no such file")
                    }
                    try SourceCatalog.check(layer)
                    let (v, p) = (layer.values.count, layer.profiles.count)
                    print("\(file): ok (\(v) setting\(v == 1 ? "" : "s"), \(p) profile\(p == 1 ? "" : "s"))")
                } catch let problem as ConfigurationProblem {
                    throw CommandFailure("\(problem)")
                }
            }
        }

        /// `mouse3d config defaults`.
        struct Defaults: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "defaults",
                abstract: "Print the documented default configuration (as installed in Config/mouse3d.toml).")

            func run() throws {
                Swift.print(Configuration.documentedDefaults, terminator: "")
            }
        }
    }
}
