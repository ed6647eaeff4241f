import Glibc
import Mouse3DCore
import SystemPackage

/// What the discovery daemon reported.
public enum DiscoveryEvent: Sendable, Equatable {
    /// The daemon is not running (or went away); announcing and browsing resume when it returns.
    case daemonUnavailable(String)
    /// Connected to the daemon.
    case daemonRunning
    /// The announcement is registered under this name.
    case published(String)
    /// The announcement could not be registered.
    case publishFailed(String)
    /// A service instance was resolved.
    case found(DiscoveredService)
    /// A service instance went away (on one interface and family: `ipv6` or not).
    case removed(name: String, interface: Int32, ipv6: Bool)
    /// Browsing or resolving failed.
    case browseFailed(String)
}
