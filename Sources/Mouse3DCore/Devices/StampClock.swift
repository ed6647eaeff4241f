/// Where a motion driver's sample stamps (MSC_TIMESTAMP) come from, as the driver's source says;
/// it decides whether ``EvdevMotionDecoder`` may correct them by their arrival times.
public enum StampClock: String, Sendable, Equatable {
    /// The controller's own clock, read from each report and its differences summed
    /// (hid-playstation, hid-sony). A crystal is right to a few hundred parts per million; a
    /// busy host or link that delivers reports late is not: the stamps are kept as they are.
    case counted
    /// Computed by the driver from an average of report arrivals (hid-nintendo): a step more than
    /// 2% from the time a sample takes by arrival is set to the driver's last step that agreed,
    /// or else corrected by its own ratio to the arrivals.
    case computed
    /// A driver mouse3d does not know: corrected by the window's ratio when that is off by more
    /// than noise.
    case unknown
}
