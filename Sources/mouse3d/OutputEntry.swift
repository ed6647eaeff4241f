import ArgumentParser
import Mouse3DAssembly
import Mouse3DLinux

/// An entry of the output catalog: an output's own flags (an option group) and how it is made
/// when they (or the command's settings) ask for it. A new output is its class, an entry, and the
/// entry's line in ``OutputOptions`` (`run` and `receive` take it from there: the pipeline, the
/// start line, the closing lines, a reload).
protocol OutputEntry: ParsableArguments {
    /// Whether its output is asked for (printing is the default when no other is).
    func isAsked(_ request: OutputOptions.Request) -> Bool
    /// The output, when it is asked for; nil otherwise.
    func make(_ context: OutputContext) throws -> PluggedOutput?
}

/// What an entry may use to make its output.
struct OutputContext {
    var diagnostics: Diagnostics
    /// The command's settings for its outputs.
    var request: OutputOptions.Request
    /// Whether an output other than printing is asked for (by an entry or by the command).
    var othersAsked: Bool
}
