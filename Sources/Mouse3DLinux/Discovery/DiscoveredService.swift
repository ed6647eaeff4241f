import Glibc
import Mouse3DCore
import SystemPackage

/// A DNS-SD service instance found and resolved on one interface and address family.
public struct DiscoveredService: Sendable, Equatable {
    /// The instance name.
    public var name: String
    /// The interface it was found on (index).
    public var interface: Int32
    /// The host it runs on, `NAME.local`.
    public var hostName: String
    /// Its address and port.
    public var address: SocketAddress
    /// Its TXT record, key to value (a key without `=` has an empty value).
    public var txt: [String: String]

    /// Creates a record (the discovery thread does; tests may too).
    public init(name: String, interface: Int32, hostName: String, address: SocketAddress, txt: [String: String]) {
        self.name = name
        self.interface = interface
        self.hostName = hostName
        self.address = address
        self.txt = txt
    }
}
