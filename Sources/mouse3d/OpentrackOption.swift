import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// `--opentrack HOST[:PORT]`, shared by run and receive: an entry of the output catalog.
struct OpentrackOption: OutputEntry {
    @Option(
        help: ArgumentHelp(
            "Send each attitude to opentrack's 'UDP over network' input at HOST[:PORT] (port 4242 unless given): six doubles, yaw/pitch/roll in opentrack's signs.",
            valueName: "HOST[:PORT]"),
        transform: AddressArgument.init(parsing:))
    var opentrack: AddressArgument?

    func isAsked(_ request: OutputOptions.Request) -> Bool { opentrack != nil }

    func make(_ context: OutputContext) throws -> PluggedOutput? {
        try start().map { o in
            PluggedOutput(
                o, kind: .drivesSomething, name: "opentrack at \(o.address)",
                announcement: "sending poses to opentrack at \(o.address)", part: Part(closing: { [o.summary] }))
        }
    }

    /// The output, if asked for.
    func start() throws -> OpentrackOutput? {
        guard let opentrack = opentrack?.text else { return nil }
        let address: SocketAddress
        do {
            address = try SocketAddress.resolve(opentrack, defaultPort: OpentrackPose.defaultPort, passive: false)
        } catch {
            throw CommandFailure("--opentrack: \(error); for example 127.0.0.1 or 192.168.1.20:4242")
        }
        do {
            return try OpentrackOutput(to: address)
        } catch {
            throw CommandFailure("--opentrack: cannot send to \(address): \(error)")
        }
    }
}
