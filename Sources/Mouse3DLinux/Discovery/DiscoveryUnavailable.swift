import CAvahi
import Glibc
import Mouse3DCore
import Synchronization
import SystemPackage

/// Why discovery cannot start.
public struct DiscoveryUnavailable: Error, Sendable, CustomStringConvertible {
    /// The reason, from Avahi.
    public var reason: String
    public var description: String { reason }
}
