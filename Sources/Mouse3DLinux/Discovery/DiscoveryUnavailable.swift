import Glibc
import Mouse3DCore
import SystemPackage

/// Why discovery cannot start.
public struct DiscoveryUnavailable: Error, Sendable, CustomStringConvertible {
    /// The reason, from the bus or Avahi.
    public var reason: String
    public var description: String { reason }
}
