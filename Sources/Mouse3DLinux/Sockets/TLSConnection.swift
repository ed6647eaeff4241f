import COpenSSL
import Glibc
import SystemPackage

/// One TLS connection over an accepted, non-blocking TCP connection (the server side). Reads and
/// writes never block: OpenSSL's "want read/write" become ``TCPStream/ReadOutcome/wouldBlock`` and
/// a write of 0. Owned by the event loop's thread.
public final class TLSConnection {
    /// The TCP connection underneath (its descriptor is what the loop watches).
    public let stream: TCPStream
    let ssl: OpaquePointer
    let lib: UnsafePointer<m3d_openssl>
    /// Whether the handshake is done.
    public private(set) var isEstablished = false

    /// Starts the server side of a handshake on `stream`.
    public init(stream: TCPStream, context: TLSServerContext) throws(TLSError) {
        lib = context.lib
        guard let ssl = lib.pointee.SSL_new(context.context) else { throw TLSError.openSSL("SSL_new") }
        self.ssl = ssl
        self.stream = stream
        guard lib.pointee.SSL_set_fd(ssl, stream.descriptor.rawValue) == 1 else {
            throw TLSError.openSSL("SSL_set_fd")
        }
        lib.pointee.SSL_set_accept_state(ssl)
    }

    deinit { lib.pointee.SSL_free(ssl) }

    /// Whether a whole ClientHello has been read (the handshake's state machine has left its first
    /// state): a connection that sent a byte or two and stopped has not. `SSL_get_state(3)`.
    public var helloReceived: Bool { isEstablished || lib.pointee.SSL_get_state(ssl) != TLS_ST_BEFORE }

    /// Decrypted bytes OpenSSL holds that the socket will not signal (read them before waiting).
    public var pendingBytes: Int { Int(lib.pointee.SSL_pending(ssl)) }

    /// What one step of the handshake gave.
    public enum HandshakeOutcome: Equatable, Sendable {
        case done, inProgress
        /// Not TLS (a plain HTTP request on the port, say), or TLS that failed: `reason` for the count.
        case failed(reason: String)
        /// TLS this server does not offer (no group, signature or suite in common): `reason`.
        case refused(reason: String)
        /// The client left: it closed the connection or sent an alert (a browser that will not
        /// trust the certificate until its user says so does this), which is not an attack.
        case abandoned
    }

    /// Goes on with the handshake as far as the socket allows. `SSL_do_handshake(3)`.
    public func handshake() -> HandshakeOutcome {
        guard !isEstablished else { return .done }
        let r = Self.sheltered { lib.pointee.SSL_do_handshake(ssl) }
        if r == 1 {
            isEstablished = true
            return .done
        }
        switch lib.pointee.SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .inProgress
        case SSL_ERROR_ZERO_RETURN: return .abandoned
        default:
            let detail = TLSError.queuedError()
            // Reasons from OpenSSL's ssl_err.c: the peer's alerts ("tlsv1 alert unknown ca",
            // "sslv3 alert certificate unknown"), an end of file mid-handshake, and what nothing in
            // common gives.
            if detail.isEmpty || detail.contains(" alert ") || detail.contains("unexpected eof") { return .abandoned }
            if detail.contains("no shared") || detail.contains("no suitable") { return .refused(reason: detail) }
            return .failed(reason: detail.contains("http request") ? "plain HTTP on the TLS port" : detail)
        }
    }

    /// Reads decrypted bytes into `buffer`. `SSL_read(3)`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TCPStream.ReadOutcome {
        lib.pointee.ERR_clear_error()
        let r = Self.sheltered { lib.pointee.SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count)) }
        if r > 0 { return .bytes(Int(r)) }
        switch lib.pointee.SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
        default:
            lib.pointee.ERR_clear_error()
            return .closed
        }
    }

    /// Writes as much of `bytes` as TLS and the socket take now: the count (0 when it must wait),
    /// or nil when the connection is gone. `SSL_write(3)`.
    public func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count > 0 else { return 0 }
        lib.pointee.ERR_clear_error()
        let r = Self.sheltered { lib.pointee.SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count)) }
        if r > 0 { return Int(r) }
        switch lib.pointee.SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return 0
        default:
            lib.pointee.ERR_clear_error()
            return nil
        }
    }

    /// Runs `body`, an OpenSSL call that may write to the socket, with SIGPIPE blocked on this thread,
    /// and takes back a SIGPIPE it raised. OpenSSL's socket BIO writes with `write(2)`, not `send(2)`
    /// with `MSG_NOSIGNAL`: a write to a peer that has gone (one that sent a bad record and closed,
    /// so that the answer is an alert) would otherwise end the process. The failed call shows as
    /// `EPIPE` instead, and the connection is closed as any failed one.
    static func sheltered<T>(_ body: () -> T) -> T {
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipe, &previous)
        let result = body()
        var pending = sigset_t()
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
            var now = timespec()
            _ = sigtimedwait(&pipe, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        return result
    }
}
