import SystemPackage

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
    public var helloReceived: Bool { isPlain == true || (isPlain == false && tls.helloReceived) }
    public var silent: Bool { isPlain == nil }
}
