import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux
import Mouse3DView

/// `--view [ADDR:]PORT`, shared by run and receive: an entry of the output catalog. What the page
/// draws (`phone`, `gamepad`, `sensor`) and its recenter button (a process that fuses offers one on
/// a loopback view) are the command's.
struct ViewOption: OutputEntry {
    @Option(
        help: ArgumentHelp(
            "Serve a live 3D view at [ADDR:]PORT (127.0.0.1 unless an address is given; read-only): open the URL it prints in a browser.",
            valueName: "[ADDR:]PORT"),
        transform: ViewAddress.init(parsing:))
    var view: ViewAddress?

    func isAsked(_ request: OutputOptions.Request) -> Bool { view != nil }

    func make(_ context: OutputContext) throws -> PluggedOutput? {
        guard let view else { return nil }
        let request = context.request
        let server = try start(
            view, diagnostics: context.diagnostics, device: request.device, onRecenter: request.onRecenter)
        return PluggedOutput(
            ViewOutput(server: server, showsLatency: request.showsLatency), kind: .view, name: "the live view",
            startLine: "view at \(server.url)", part: server)
    }

    /// Starts the live view, saying so when it is reachable from other machines.
    private func start(
        _ spec: ViewAddress, diagnostics: Diagnostics, device: String, onRecenter: (() throws -> Void)?
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
}

/// `--view [ADDR:]PORT`, parsed by argument-parser, so that a bad one fails before anything starts.
struct ViewAddress {
    var address: String
    var port: UInt16

    init(parsing text: String) throws {
        guard let (address, port) = WebAccessPolicy.parse(text) else {
            throw ValidationError("'\(text)' is not [ADDR:]PORT; for example 8099, 127.0.0.1:8099 or [::1]:8099")
        }
        self.address = address
        self.port = port
    }
}
