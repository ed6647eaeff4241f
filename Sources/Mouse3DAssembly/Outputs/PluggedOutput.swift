import Mouse3DCore

/// An output an entry of the output catalog made (opentrack; a new output is an entry and its
/// line in the catalog): what joins the pipeline, how it is named, and the part the session runs.
public struct PluggedOutput {
    /// What the pipeline writes to.
    public var output: any AttitudeOutput
    /// It drives something elsewhere (a head tracker): `receive --extrapolate` predicts through gaps
    /// for it, as for a virtual device.
    public var drivesSomething: Bool
    /// Its name in `run`'s start line ("opentrack at 127.0.0.1:4242").
    public var name: String
    /// What `receive` says of it when it starts, if anything.
    public var announcement: String?
    /// What the session runs of it: attached, its closing lines. Not its finish: the output is in
    /// the pipeline, which finishes it.
    public var part: (any Component)?

    /// An output made by an entry.
    public init(
        _ output: any AttitudeOutput, drivesSomething: Bool, name: String, announcement: String? = nil,
        part: (any Component)? = nil
    ) {
        self.output = output
        self.drivesSomething = drivesSomething
        self.name = name
        self.announcement = announcement
        self.part = part
    }
}
