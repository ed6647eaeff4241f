import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d record`: raw samples from a live sensor into a motion log.
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record raw samples from a motion sensor into a log that replay and send can read.",
            discussion: """
                The log has the columns t,gx,gy,gz,ax,ay,az (seconds from the first sample, rad/s, m/s²). \
                It is flushed after every batch of samples, so a recording ended by SIGINT, SIGTERM or a \
                crash keeps everything up to that point.
                """)

        @Option(help: "Motion source: \(SourceCatalog.help(recording: true)).")
        var source = SourceSpecifier(LiveSourceKind(.automatic))

        @Option(help: "Where to write the log (CSV).")
        var output: String

        @Option(help: "Stop after this many seconds (default: until interrupted).")
        var duration: Double?

        @OptionGroup var live: LiveSourceOptions

        func validate() throws {
            if let refusal = type(of: source.kind).recordRefusal { throw ValidationError(refusal) }
            if let duration, !(duration.isFinite && duration > 0) {
                throw ValidationError("--duration must be a positive number of seconds.")
            }
        }

        func run() throws {
            let session = try Session(signals: .stop, quiet: false)
            let flags = try EffectiveConfiguration.flags { try live.addFlags(to: &$0) }
            var configuration = try EffectiveConfiguration.load(flags: flags)
            let opened = try source.kind.open(.record, configuration: &configuration, diagnostics: session.diagnostics)
            try RecordingRun.run(opened, to: output, duration: duration, session: session)
        }
    }
}
