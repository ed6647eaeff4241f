import Mouse3DCore
import Mouse3DLinux
import Mouse3DView

/// Starts the live view that `--view` names, saying so when it is reachable from other machines.
/// `onRecenter` (a process that fuses) offers a recenter button on a loopback view; `device` is
/// what the page draws (`phone`, `gamepad`, `sensor`).
func startView(
    _ spec: ViewAddress, diagnostics: Diagnostics, device: String = "sensor", onRecenter: (() throws -> Void)? = nil
) throws -> ViewServer {
    let (address, port) = (spec.address, spec.port)
    if !WebAccessPolicy.isLoopback(address) {
        diagnostics.say(
            "warning: --view on \(address): anyone who can reach that address and has the URL's token sees your motion (the view is read-only, plain HTTP)"
        )
    }
    do {
        let token = try ViewToken.loadOrCreate(in: FileSystem.userConfigurationDirectory)
        return try ViewServer(address: address, port: port, token: token, device: device, onRecenter: onRecenter)
    } catch {
        throw CommandFailure("--view: \(error)")
    }
}
