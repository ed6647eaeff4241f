import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// `--dsu` and `--dsu-calibrated`, shared by run and send.
struct DSUOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve the motion to emulators as a DSU (cemuhook) server at [ADDR:]PORT (127.0.0.1 unless an address is given; conventionally 26760).",
            valueName: "[ADDR:]PORT"),
        transform: AddressArgument.init(parsing:))
    var dsu: AddressArgument?

    @Flag(help: "With --dsu: send the gyroscope less the fusion's bias estimate (default: as the sensor reports it).")
    var dsuCalibrated = false

    @Flag(
        help: ArgumentHelp(
            "With --dsu: measure each datagram's latency from its sample's arrival and report it at the end (bench dsu).",
            visibility: .hidden))
    var dsuLatency = false

    func validate() throws {
        if dsuCalibrated && dsu == nil { throw ValidationError("--dsu-calibrated goes with --dsu.") }
    }

    /// The evdev button codes the server passes on, to be watched on the gamepad.
    /// What the DSU server needs of the gamepad: its buttons and sticks.
    var pad: PadNeeds { dsu == nil ? PadNeeds() : PadNeeds(buttons: DSUServer.buttonCodes, axes: DSUServer.axisCodes) }

    /// Starts the server for the device with calibration key `device` (its samples in mouse3d's
    /// gamepad frame when `inGamepadFrame`), saying where, and warning
    /// when it is reachable from other machines.
    func start(device: String, inGamepadFrame: Bool, diagnostics: Diagnostics) throws -> DSUServer? {
        guard let dsu = dsu?.text else { return nil }
        let text = dsu.allSatisfy(\.isNumber) ? "127.0.0.1:" + dsu : dsu
        let address: SocketAddress
        do {
            address = try SocketAddress.resolve(text, defaultPort: DSUProtocol.defaultPort, passive: false)
        } catch {
            throw CommandFailure("--dsu: \(error); for example 26760 or 127.0.0.1:26760")
        }
        let server: DSUServer
        do {
            server = try DSUServer(
                listeningOn: address, device: device, inGamepadFrame: inGamepadFrame, calibrated: dsuCalibrated,
                measuresLatency: dsuLatency)
        } catch {
            throw CommandFailure("--dsu: cannot listen on \(address): \(SystemCallError.describeBindFailure(error))")
        }
        if !server.localAddress.isLoopback {
            diagnostics.say(
                "warning: --dsu on \(server.localAddress): DSU has no authentication; anyone who can reach it reads your motion, "
                    + "and each subscription costs one packet per sample (at most \(DSUServer.maximumClients) subscribers)"
            )
        }
        diagnostics.say(
            "DSU server at \(server.localAddress) (slot 0, axes: \(server.mapping.name)\(dsuCalibrated ? ", gyroscope bias removed" : ""))"
        )
        return server
    }
}
