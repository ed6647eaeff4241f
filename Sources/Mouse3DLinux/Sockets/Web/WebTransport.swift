import SystemPackage

/// What a ``WebConnections`` connection is carried over: the TCP stream itself, or TLS over it.
public protocol WebTransport: AnyObject {
    /// Goes on with a handshake as far as the socket allows (`.done` at once when there is none).
    func advanceHandshake() -> TLSConnection.HandshakeOutcome
    /// Reads into `buffer`: bytes, nothing now, or the connection is gone (any error closes it).
    func receiveBytes(into buffer: UnsafeMutableRawBufferPointer) -> TCPStream.ReadOutcome
    /// Writes what the socket takes now: the count (0 when it must wait), nil when the connection is gone.
    func sendBytes(_ bytes: UnsafeRawBufferPointer) -> Int?
    /// Bytes read and held above the socket, which the socket will not signal.
    var bufferedBytes: Int { get }
    /// Whether a handshake is still to be done (its steps cost the loop's time).
    var handshakePending: Bool { get }
    /// The descriptor the loop watches.
    var descriptor: FileDescriptor { get }
    /// Whether a client spoke plain HTTP on a TLS port (to be redirected to `https://`).
    var isPlainOnTLSPort: Bool { get }
    /// Whether the client has sent what opens its handshake (a whole ClientHello; at once without TLS).
    var helloReceived: Bool { get }
    /// Whether nothing at all has come from the client yet (as far as the transport can tell).
    var silent: Bool { get }
}

extension WebTransport {
    public var isPlainOnTLSPort: Bool { false }
    public var helloReceived: Bool { true }
    public var silent: Bool { true }
}

extension TCPStream: WebTransport {
    public func advanceHandshake() -> TLSConnection.HandshakeOutcome { .done }
    public func receiveBytes(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        (try? read(into: buffer)) ?? .closed
    }
    public func sendBytes(_ bytes: UnsafeRawBufferPointer) -> Int? { (try? write(bytes)) ?? nil }
    public var bufferedBytes: Int { 0 }
    public var handshakePending: Bool { false }
}

extension TLSConnection: WebTransport {
    public func advanceHandshake() -> HandshakeOutcome { handshake() }
    public func receiveBytes(into buffer: UnsafeMutableRawBufferPointer) -> TCPStream.ReadOutcome { read(into: buffer) }
    public func sendBytes(_ bytes: UnsafeRawBufferPointer) -> Int? { write(bytes) }
    public var bufferedBytes: Int { pendingBytes }
    public var handshakePending: Bool { !isEstablished }
    public var descriptor: FileDescriptor { stream.descriptor }
}
