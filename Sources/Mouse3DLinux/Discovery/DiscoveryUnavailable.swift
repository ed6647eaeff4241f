import Mouse3DCore
import CAvahi
import Glibc
import SystemPackage
import Synchronization

/// Why discovery cannot start.
public struct DiscoveryUnavailable: Error, Sendable, CustomStringConvertible {
    /// The reason, from Avahi.
    public var reason: String
    public var description: String { reason }
}
