/// What a source is opened for.
public enum SourcePurpose {
    /// Fused into attitudes (`run`, `send`): a log at `speed` (nil: as fast as it goes), looped;
    /// a phone remembered; a controller's configured buttons read, and what `pad` asks besides for
    /// outputs that forward the gamepad (a DSU server, the virtual gamepad).
    case fuse(speed: Double?, loops: Bool, rememberPhone: Bool, pad: PadNeeds)
    /// Still samples for `calibrate`: a log read whole, once; no buttons.
    case calibrate
    /// Raw samples for `record`: no buttons.
    case record
}
