import Glibc
import Mouse3DCore
import SystemPackage

/// A DNS-SD service to announce on the local network.
public struct ServiceAnnouncement: Sendable, Equatable {
    /// The instance name users see (Avahi picks `NAME #2` and so on if it is taken).
    public var name: String
    /// The service type, for example `_mouse3d._udp`.
    public var type: String
    /// The port the service listens on.
    public var port: UInt16
    /// TXT record entries, `key=value`.
    public var txt: [String]
    /// Announce on the loopback interface only (the service listens on loopback).
    public var loopbackOnly: Bool

    /// Creates an announcement.
    public init(name: String, type: String, port: UInt16, txt: [String], loopbackOnly: Bool) {
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
        self.loopbackOnly = loopbackOnly
    }
}
