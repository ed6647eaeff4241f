import Mouse3DCore
import Mouse3DLinux
import Mouse3DView

/// Starts the live view that `--view` names, saying so when it is reachable from other machines.
/// `onRecenter` (a process that fuses) offers a recenter button on a loopback view.
func startView(_ spec: String, diagnostics: Diagnostics, onRecenter: (() throws -> Void)? = nil) throws -> ViewServer {
    guard let (address, port) = ViewAccessPolicy.parse(spec) else {
        throw CommandFailure("--view: '\(spec)' is not [ADDR:]PORT; for example 8099, 127.0.0.1:8099 or [::1]:8099")
    }
    if !ViewAccessPolicy.isLoopback(address) {
        diagnostics.say("warning: --view on \(address): anyone who can reach that address and has the URL's token sees your motion (the view is read-only, plain HTTP)")
    }
    do {
        let token = try ViewToken.loadOrCreate(in: FileSystem.userConfigurationDirectory)
        return try ViewServer(address: address, port: port, token: token, onRecenter: onRecenter)
    } catch {
        throw CommandFailure("--view: \(error)")
    }
}
