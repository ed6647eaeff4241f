import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Mouse3DView

/// The outputs `run` and `receive` share, declared once: printing, a virtual device, the live view
/// and opentrack, with the pointer's tuning; ``assemble(_:)`` builds them once for both.
///
/// Printing is the default when no other output is asked for (a virtual device, the view, opentrack,
/// DSU; for receive, `receive.output` names the default output).
struct OutputOptions: ParsableArguments {
    @Flag(
        help:
            "Print each attitude on standard output (the default when no other output is asked for; --format implies it)."
    )
    var print = false

    @Option(
        help:
            "Print format: text (degrees) or jsonl (radians; keys sender, stream, seq, time, roll, pitch, yaw, buttons). Default: receive.format, text."
    )
    var format: PrintFormat?

    @Option(
        help:
            "Drive a virtual input device (receive: one per sender): pointer (gyro mouse), joystick (absolute pose), spacemouse (6-DoF rates for spacenavd) or gamepad (an Xbox 360 pad for games: run passes the real pad through and hides it, the gyroscope turns a stick)."
    )
    var uinput: UinputMode?

    @Option(
        help: ArgumentHelp(
            "Serve a live 3D view at [ADDR:]PORT (127.0.0.1 unless an address is given; read-only): open the URL it prints in a browser.",
            valueName: "[ADDR:]PORT"),
        transform: ViewAddress.init(parsing:))
    var view: ViewAddress?

    @OptionGroup var pointer: PointerOptions

    @OptionGroup var gamepad: GamepadOptions

    // The output catalog's entries beyond these: one line each here and in `entries`.
    @OptionGroup var opentrack: OpentrackOption

    /// The entries, in the order their outputs join the pipeline (after device, printer and view).
    var entries: [any OutputEntry] {
        [
            opentrack
        ]
    }

    /// These flags as a configuration layer (the pointer's tuning and the print format).
    func addFlags(to flags: inout ConfigurationLayer) throws {
        try pointer.addFlags(to: &flags)
        try gamepad.addFlags(to: &flags)
        if let format { try flags.set(.receiveFormat, format.rawValue, origin: .flag("--format")) }
    }

    /// What the command adds to the choice: the device mode in force (a flag or the configuration),
    /// whether the configuration makes printing the default, other outputs of its own (DSU), and
    /// what each output is wrapped in.
    struct Request {
        var uinput: UinputMode?
        var printsByDefault = true
        var otherOutputs = false
        var format: PrintFormat
        var mapping: PointerMapping
        /// The gamepad's gyro stick, and the real pad's keys it does not pass on (those mouse3d
        /// acts on).
        var gyroStick = GyroStickMapping()
        var withheld: Set<Int32> = []
        var showsLatency = false
        var onRecenter: (() throws -> Void)?
        /// What the live view draws: `phone`, `gamepad`, or `sensor` (a plain slab).
        var device = "sensor"
        /// Pacing or prediction, by kind of output.
        var wrap: (any AttitudeOutput, Kind) -> any AttitudeOutput = { output, _ in output }
    }

    /// The kinds of output, for ``Request/wrap``: `drivesSomething`, an entry's output that drives
    /// something elsewhere (opentrack).
    enum Kind { case device, printer, view, drivesSomething, other }

    /// The outputs built, each also in ``all`` (wrapped) and named in ``names``.
    struct Assembled {
        var device: UinputOutput?
        var printer: PrintOutput?
        var view: ViewServer?
        /// The entries' outputs (opentrack).
        var plugged: [PluggedOutput] = []
        var all: [any AttitudeOutput] = []
        var names: [String] = []
        /// What a receiver announces it does with frames.
        var announcedNames: [String] { (printer != nil ? ["print"] : []) + (device.map { [$0.mode.rawValue] } ?? []) }
    }

    /// Builds the outputs asked for, in the order device, printer, view, then the entries'.
    func assemble(_ request: Request, diagnostics: Diagnostics) throws -> Assembled {
        var built = Assembled()
        built.plugged = try entries.compactMap { try $0.make(OutputContext(diagnostics: diagnostics)) }
        built.view = try view.map {
            try startView($0, diagnostics: diagnostics, device: request.device, onRecenter: request.onRecenter)
        }
        let others = request.uinput != nil || built.view != nil || !built.plugged.isEmpty || request.otherOutputs
        built.device = request.uinput.map {
            UinputOutput(
                mode: $0, mapping: request.mapping, gyroStick: request.gyroStick, withheld: request.withheld,
                diagnostics: diagnostics)
        }
        // An explicit --format asks for printing too.
        built.printer =
            print || format != nil || (request.printsByDefault && !others) ? PrintOutput(format: request.format) : nil
        if let device = built.device {
            built.all.append(request.wrap(device, .device))
            built.names.append("virtual \(device.mode.rawValue)")
        }
        if let printer = built.printer {
            built.all.append(request.wrap(printer, .printer))
            built.names.append("standard output")
        }
        if let view = built.view {
            built.all.append(request.wrap(ViewOutput(server: view, showsLatency: request.showsLatency), .view))
            built.names.append("the live view")
        }
        for plugged in built.plugged {
            built.all.append(request.wrap(plugged.output, plugged.drivesSomething ? .drivesSomething : .other))
            built.names.append(plugged.name)
        }
        return built
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
