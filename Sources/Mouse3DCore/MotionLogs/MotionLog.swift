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
    /// The frame its samples are in, from a `frame:NAME` header cell (``mouse3dFrame``), or nil: a
    /// log written before logs said it (or by another tool), whose samples are a device's own axes.
    public var frame: String?

    /// Creates a log from its parts.
    public init(samples: [MotionSample], truth: [Quaternion]? = nil, movement: [Bool]? = nil, frame: String? = nil) {
        self.samples = samples
        self.truth = truth
        self.movement = movement
        self.frame = frame
    }

    /// The `frame:` value of a log whose samples are in mouse3d's frame (x forward, y left, z up):
    /// what `record` writes from a gamepad, an IIO sensor or a phone. The header cell is the last,
    /// with no cell under it in the rows; readers from before it only read the columns they know.
    public static let mouse3dFrame = "mouse3d"

    /// The column names a log must have.
    public static let requiredColumns = ["t", "gx", "gy", "gz", "ax", "ay", "az"]
    /// The columns that carry ground truth.
    public static let truthColumns = ["qw", "qx", "qy", "qz"]
}
