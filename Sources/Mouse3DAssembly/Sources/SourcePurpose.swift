/// What a source is opened for.
public enum SourcePurpose {
    /// Fused into attitudes (`run`, `send`): a log at `speed` (nil: as fast as it goes), looped;
    /// a phone remembered; a controller's configured buttons read, and these codes besides for
    /// outputs that forward them (a DSU server).
    case fuse(speed: Double?, loops: Bool, rememberPhone: Bool, extraButtons: Set<Int32>, axes: Set<Int32>)
    /// Still samples for `calibrate`: a log read whole, once; no buttons.
    case calibrate
    /// Raw samples for `record`: no buttons.
    case record
}
