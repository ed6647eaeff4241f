import Mouse3DCore

/// What a server built on ``WebConnections`` decides: who is let in when the table is full, what a
/// request gets, what its WebSocket frames mean, and what a refusal is counted as. Called on the
/// loop's thread.
public protocol WebConnectionsDelegate: AnyObject {
    /// Before a connection from `peer` (its address without the port) in `network` (its /24 or
    /// /64) is taken: makes room (by ``WebConnections/close(_:)``) and counts its own refusals;
    /// false turns the newcomer away. Connections opened at or after `turn` were accepted this
    /// wake-up and have had no chance yet.
    func admit(peer: String, network: String, server: WebConnections, turn: UInt64, now: UInt64) -> Bool
    /// A whole request head: answer with ``WebConnections/respond(_:_:)`` or
    /// ``WebConnections/upgrade(_:switching:authenticated:)``.
    func route(_ head: HTTPRequestHead, on connection: WebConnections.Connection) throws
    /// A WebSocket frame, already within the frame budget. True when taken here; false leaves it to
    /// the server: a close is answered, a ping's pong is sent (the latest only), the rest is dropped.
    func frame(_ header: WebSocketFrame.Header, on connection: WebConnections.Connection) throws -> Bool
    /// One refusal of the server's own, to count.
    func refused(_ reason: WebConnections.Refusal)
    /// Something browsers do every day that ended a connection, counted apart from refusals.
    func ordinary(_ event: WebConnections.Ordinary)
    /// A connection is gone (closed by either side, or refused).
    func closed(_ connection: WebConnections.Connection)
    /// The delegate's own next deadline (nil: none), and its work at the loop's timer.
    var nextDeadline: UInt64? { get }
    func tick(now: UInt64) throws
}

extension WebConnectionsDelegate {
    public func frame(_ header: WebSocketFrame.Header, on connection: WebConnections.Connection) throws -> Bool {
        false
    }
    public func closed(_ connection: WebConnections.Connection) {}
    public func ordinary(_ event: WebConnections.Ordinary) {}
    public var nextDeadline: UInt64? { nil }
    public func tick(now: UInt64) throws {}
}
