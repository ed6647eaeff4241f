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
}

extension WebTransport {
    public var isPlainOnTLSPort: Bool { false }
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

/// A connection on a TLS port that may turn out to be plain HTTP: a person typed `http://`. The
/// first byte decides, peeked and left in the socket: a TLS record of the handshake starts with 22
/// (0x16, RFC 8446 §5.1); a request line starts with a letter. Plain, the connection is the stream
/// itself, so the server can answer with a redirect to `https://` instead of a bare reset.
public final class TLSOrPlain: WebTransport {
    public let tls: TLSConnection
    /// Whether the first byte said plain HTTP (nil until it came).
    public private(set) var isPlain: Bool?

    public init(stream: TCPStream, context: TLSServerContext) throws(TLSError) {
        tls = try TLSConnection(stream: stream, context: context)
    }

    public var descriptor: FileDescriptor { tls.stream.descriptor }

    public func advanceHandshake() -> TLSConnection.HandshakeOutcome {
        if isPlain == nil {
            switch tls.stream.peekFirstByte() {
            case .wouldBlock: return .inProgress
            case .closed: return .abandoned
            case .byte(let b): isPlain = b != 0x16
            }
        }
        return isPlain == true ? .done : tls.handshake()
    }

    public func receiveBytes(into buffer: UnsafeMutableRawBufferPointer) -> TCPStream.ReadOutcome {
        isPlain == true ? tls.stream.receiveBytes(into: buffer) : tls.read(into: buffer)
    }

    public func sendBytes(_ bytes: UnsafeRawBufferPointer) -> Int? {
        isPlain == true ? tls.stream.sendBytes(bytes) : tls.write(bytes)
    }

    public var bufferedBytes: Int { isPlain == true ? 0 : tls.pendingBytes }
    public var handshakePending: Bool { isPlain == nil || (isPlain == false && !tls.isEstablished) }
    public var isPlainOnTLSPort: Bool { isPlain == true }
}
