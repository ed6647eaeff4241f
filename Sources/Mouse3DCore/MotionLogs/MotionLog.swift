/// A recorded motion log: samples and, where the log carries them, ground-truth orientations.
///
/// The format is CSV with a header line. Required columns, in any order: `t` (seconds), `gx,gy,gz`
/// (rad/s), `ax,ay,az` (m/s²). Optional: `qw,qx,qy,qz` (true orientation, `nan` where unknown) and
/// `movement` (1 where a sample counts for scoring). Other columns are ignored.
public struct MotionLog: Sendable {
    /// The samples, in file order.
    public var samples: [MotionSample]
    /// The true orientation of each sample, if the log has `qw,qx,qy,qz` columns.
    public var truth: [Quaternion]?
    /// Whether each sample counts for scoring, if the log has a `movement` column.
    public var movement: [Bool]?

    /// Creates a log from its parts.
    public init(samples: [MotionSample], truth: [Quaternion]? = nil, movement: [Bool]? = nil) {
        self.samples = samples
        self.truth = truth
        self.movement = movement
    }

    /// The column names a log must have.
    public static let requiredColumns = ["t", "gx", "gy", "gz", "ax", "ay", "az"]
    /// The columns that carry ground truth.
    public static let truthColumns = ["qw", "qx", "qy", "qz"]
}
