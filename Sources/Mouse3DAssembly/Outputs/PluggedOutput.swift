import Mouse3DCore

/// An output an entry of the output catalog made (printing, a virtual device, the live view,
/// opentrack; a new output is an entry and its line in the catalog): what joins the pipeline, how
/// it is named, what a reload may change in it, and the part the session runs.
public struct PluggedOutput {
    /// What the pipeline writes to.
    public var output: any AttitudeOutput
    /// What kind of output it is, for what a command wraps it in (pacing, prediction).
    public var kind: OutputKind
    /// Its name in `run`'s start line ("opentrack at 127.0.0.1:4242").
    public var name: String
    /// What `receive` says of it when it starts, if anything.
    public var announcement: String?
    /// What `run` and `receive` say once it started, for people and scripts to read ("view at URL").
    public var startLine: String?
    /// How a receiver that announces itself names it ("print", "pointer"), if it does.
    public var announcedName: String?
    /// What a configuration reload changes in it (the print format, the pointer's tuning), if any.
    public var retune: ((OutputTuning) -> Void)?
    /// What the session runs of it: attached, its closing lines, its finish (a server's sockets).
    /// Not the output's finish: the output is in the pipeline, which finishes it.
    public var part: (any Component)?

    /// An output made by an entry.
    public init(
        _ output: any AttitudeOutput, kind: OutputKind, name: String, announcement: String? = nil,
        startLine: String? = nil, announcedName: String? = nil, retune: ((OutputTuning) -> Void)? = nil,
        part: (any Component)? = nil
    ) {
        self.output = output
        self.kind = kind
        self.name = name
        self.announcement = announcement
        self.startLine = startLine
        self.announcedName = announcedName
        self.retune = retune
        self.part = part
    }
}
