import RealModule

/// Which turns of the controller move the pointer, in GyroWiki's terms.
public enum GyroSpace: String, Sendable, CaseIterable {
    /// About the controller's own axes: its yaw axis moves the pointer sideways, its pitch axis up
    /// and down, however it is held (a tilted grip mixes the two).
    case local
    /// Sideways by turns about gravity, whatever the grip; up and down by turns about the
    /// controller's pitch axis laid flat (so a rolled grip adds nothing vertical).
    case player
    /// Sideways by turns about gravity, up and down by the nose rising and falling (the attitude's
    /// yaw and pitch).
    case world
}
