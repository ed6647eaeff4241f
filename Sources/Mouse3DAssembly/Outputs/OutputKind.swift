/// The kinds of output, for what a command wraps each in: `run` paces every one at the source's
/// rate; `receive --extrapolate` predicts through gaps for a device and what drives something.
public enum OutputKind: Sendable {
    /// A virtual input device.
    case device
    /// Lines on standard output.
    case printer
    /// The live view.
    case view
    /// It drives something elsewhere (a head tracker).
    case drivesSomething
    /// Anything else.
    case other
}
