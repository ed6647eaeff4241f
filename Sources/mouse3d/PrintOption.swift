import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

/// `--print` and `--format`, shared by run and receive: an entry of the output catalog. Printing is
/// the default when no other output is asked for (for receive, `receive.output` names the default).
struct PrintOption: OutputEntry {
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

    /// Asked for by its flags (an explicit --format asks for printing too).
    func isAsked(_ request: OutputOptions.Request) -> Bool { print || format != nil }

    func make(_ context: OutputContext) throws -> PluggedOutput? {
        guard isAsked(context.request) || (context.request.printsByDefault && !context.othersAsked) else { return nil }
        let printer = PrintOutput(format: context.request.format)
        return PluggedOutput(
            printer, kind: .printer, name: "standard output", announcedName: "print",
            retune: { printer.format = $0.format })
    }
}
