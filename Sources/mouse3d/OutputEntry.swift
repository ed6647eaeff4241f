import ArgumentParser
import Mouse3DAssembly
import Mouse3DLinux

/// An entry of the output catalog: an output's own flags (an option group) and how it is made
/// when they ask for it. A new output is its class, an entry, and the entry's line in
/// ``OutputOptions`` (`run` and `receive` take it from there: the pipeline, the start line, the
/// closing lines).
protocol OutputEntry: ParsableArguments {
    /// The output, when its flags ask for it; nil otherwise.
    func make(_ context: OutputContext) throws -> PluggedOutput?
}

/// What an entry may use to make its output.
struct OutputContext {
    var diagnostics: Diagnostics
}
