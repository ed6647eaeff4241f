import ArgumentParser
import Mouse3DDoctor
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d doctor`: what the main job needs on this machine, checked, each with its fix.
    struct Doctor: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check this machine for what mouse3d needs, one line each, with the exact fix.",
            discussion: """
                Checks the build, the configuration files, /dev/uinput (present, writable, and why not), \
                the udev rule, each motion source, the systemd user units, the stream port (free, and a \
                loopback datagram arrives), the Avahi daemon, each paired receiver (an authenticated link \
                probe), and spacenavd when the spacemouse output is configured. Changes nothing. Exit \
                status 1 when something blocks the main job as configured, 0 otherwise.
                """)

        @Flag(help: "Print the checks as a JSON array of {name, status, detail, fix, blocking} (for scripts).")
        var json = false

        @Flag(help: "Skip the network checks (Avahi, probing paired receivers).")
        var offline = false

        func run() throws {
            var environment = DoctorEnvironment(
                configurationFiles: EffectiveConfiguration.filePaths,
                configurationDirectory: FileSystem.userConfigurationDirectory)
            environment.checksNetwork = !offline
            let checks = Mouse3DDoctor.Doctor.run(
                environment, version: Mouse3D.configuration.version, build: Self.build)
            print(json ? Mouse3DDoctor.Doctor.json(checks) : Mouse3DDoctor.Doctor.text(checks))
            if checks.contains(where: \.blocking) { throw ExitCode(1) }
        }

        static var build: String {
            #if DEBUG
                let configuration = "debug build"
            #else
                let configuration = "release build"
            #endif
            #if compiler(>=6.3)
                return configuration + ", Swift 6.3 or later"
            #else
                return configuration + ", Swift before 6.3"
            #endif
        }
    }
}
