import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

/// The outputs `run` and `receive` share, declared once: the output catalog's entries (printing, a
/// virtual device, the live view, opentrack) and the pointer's and gyro stick's tuning;
/// ``assemble(_:diagnostics:)`` builds them once for both.
///
/// Printing is the default when no other output is asked for (a virtual device, the view, opentrack,
/// DSU; for receive, `receive.output` names the default output).
struct OutputOptions: ParsableArguments {
    // The output catalog: one line each here and in `entries`.
    @OptionGroup var printing: PrintOption

    @OptionGroup var device: UinputOption

    @OptionGroup var live: ViewOption

    @OptionGroup var pointer: PointerOptions

    @OptionGroup var gamepad: GamepadOptions

    @OptionGroup var opentrack: OpentrackOption

    /// The entries, in the order their outputs join the pipeline.
    var entries: [any OutputEntry] {
        [device, printing, live, opentrack]
    }

    /// `--print`.
    var print: Bool { printing.print }
    /// `--uinput`.
    var uinput: UinputMode? { device.uinput }

    /// These flags as a configuration layer (the pointer's tuning and the print format).
    func addFlags(to flags: inout ConfigurationLayer) throws {
        try pointer.addFlags(to: &flags)
        try gamepad.addFlags(to: &flags)
        if let format = printing.format { try flags.set(.receiveFormat, format.rawValue, origin: .flag("--format")) }
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
        var wrap: (any AttitudeOutput, OutputKind) -> any AttitudeOutput = { output, _ in output }
    }

    /// The outputs built, each also in ``all`` (wrapped) and named in ``names``.
    struct Assembled {
        var plugged: [PluggedOutput] = []
        var all: [any AttitudeOutput] = []
        var names: [String] { plugged.map(\.name) }
        /// What a receiver announces it does with frames (printing first).
        var announcedNames: [String] {
            let printing = plugged.filter { $0.kind == .printer }
            return (printing + plugged.filter { $0.kind != .printer }).compactMap(\.announcedName)
        }

        /// A reload's new tuning, to every output it changes.
        func retune(_ tuning: OutputTuning) { for p in plugged { p.retune?(tuning) } }
    }

    /// Builds the outputs asked for, in the entries' order.
    func assemble(_ request: Request, diagnostics: Diagnostics) throws -> Assembled {
        let othersAsked = request.otherOutputs || entries.contains { !($0 is PrintOption) && $0.isAsked(request) }
        let context = OutputContext(diagnostics: diagnostics, request: request, othersAsked: othersAsked)
        var built = Assembled()
        built.plugged = try entries.compactMap { try $0.make(context) }
        built.all = built.plugged.map { request.wrap($0.output, $0.kind) }
        return built
    }
}
