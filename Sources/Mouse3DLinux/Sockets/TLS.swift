import COpenSSL
import Glibc
import SystemPackage

/// A self-signed certificate and its key, made with Debian's OpenSSL (P-256, SHA-256, server
/// authentication only), as PEM text.
public struct SelfSignedCertificate: Sendable, Equatable {
    /// The certificate, PEM.
    public var certificatePEM: [UInt8]
    /// The private key, PEM (PKCS #8). Secret.
    public var keyPEM: [UInt8]

    /// Wraps a stored pair.
    public init(certificatePEM: [UInt8], keyPEM: [UInt8]) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// A new key and certificate named `commonName`, for `names` (host names) and `addresses` (IP
    /// literals), valid `days` days (825 at most: Apple's limit for server certificates).
    public static func make(commonName: String, names: [String], addresses: [String], days: Int = 825) throws(TLSError) -> SelfSignedCertificate {
        let san = (names.map { "DNS:\($0)" } + addresses.map { "IP:\($0)" }).joined(separator: ",")
        guard let keyBIO = BIO_new(BIO_s_mem()), let certBIO = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL("BIO_new") }
        defer {
            BIO_free(keyBIO)
            BIO_free(certBIO)
        }
        guard m3d_make_self_signed(commonName, san, days, keyBIO, certBIO) == 1 else { throw TLSError.openSSL("making the certificate") }
        return SelfSignedCertificate(certificatePEM: contents(certBIO), keyPEM: contents(keyBIO))
    }

    static func contents(_ bio: OpaquePointer) -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        let n = m3d_bio_contents(bio, &data)
        guard n > 0, let data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: n))
    }

    /// The SHA-256 fingerprint of the certificate (its DER), as browsers show it: `AB:CD:...`.
    public func fingerprint() throws(TLSError) -> String {
        let cert = try Self.loadCertificate(certificatePEM)
        defer { X509_free(cert) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(cert, EVP_sha256(), &digest, &length) == 1 else { throw TLSError.openSSL("X509_digest") }
        let hex = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 15)]]) }.joined(separator: ":")
    }

    /// The names and addresses the certificate is for (its subject alternative names, as text).
    public func subjectAlternativeNames() throws(TLSError) -> [String] {
        let cert = try Self.loadCertificate(certificatePEM)
        defer { X509_free(cert) }
        guard let raw = X509_get_ext_d2i(cert, NID_subject_alt_name, nil, nil) else { return [] }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var out: [String] = []
        for i in 0..<OPENSSL_sk_num(names) {
            guard let entry = OPENSSL_sk_value(names, i)?.assumingMemoryBound(to: GENERAL_NAME.self) else { continue }
            let bio = BIO_new(BIO_s_mem())
            defer { BIO_free(bio) }
            GENERAL_NAME_print(bio, entry)
            out.append(String(decoding: Self.contents(bio!), as: UTF8.self))
        }
        return out
    }

    /// Seconds until the certificate expires (negative once it has).
    public func secondsLeft() throws(TLSError) -> Int {
        let cert = try Self.loadCertificate(certificatePEM)
        defer { X509_free(cert) }
        var days: Int32 = 0, seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_getm_notAfter(cert)) == 1 else { throw TLSError.openSSL("ASN1_TIME_diff") }
        return Int(days) * 86400 + Int(seconds)
    }

    static func loadCertificate(_ pem: [UInt8]) throws(TLSError) -> OpaquePointer {
        try read(pem, "the certificate") { PEM_read_bio_X509($0, nil, nil, nil) }
    }

    static func loadKey(_ pem: [UInt8]) throws(TLSError) -> OpaquePointer {
        try read(pem, "the key") { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    /// What `reader` makes of `pem`, through a memory BIO; `what` names it in the error.
    static func read(_ pem: [UInt8], _ what: String, _ reader: (OpaquePointer) -> OpaquePointer?) throws(TLSError) -> OpaquePointer {
        let made: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return reader(bio)
        }
        guard let made else { throw TLSError.openSSL("reading \(what)") }
        return made
    }
}

/// What went wrong in OpenSSL.
public enum TLSError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A call failed; `what` names it, with OpenSSL's first queued error.
    case openSSL(String, detail: String = TLSError.queuedError())

    public var description: String {
        switch self {
        case .openSSL(let what, let detail): "OpenSSL: \(what) failed" + (detail.isEmpty ? "" : " (\(detail))")
        }
    }

    /// OpenSSL's oldest queued error as text (the queue is cleared).
    public static func queuedError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A TLS server context: one certificate and key, TLS 1.2 or later.
public final class TLSServerContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is only read after init (OpenSSL's contexts are safe to share then).
    let context: OpaquePointer

    /// A context serving `certificate`.
    public init(certificate: SelfSignedCertificate) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw TLSError.openSSL("SSL_CTX_new") }
        context = ctx
        guard m3d_ssl_ctx_configure(ctx) == 1 else { throw TLSError.openSSL("configuring TLS") }
        let cert = try SelfSignedCertificate.loadCertificate(certificate.certificatePEM)
        defer { X509_free(cert) }
        let key = try SelfSignedCertificate.loadKey(certificate.keyPEM)
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_certificate(ctx, cert) == 1, SSL_CTX_use_PrivateKey(ctx, key) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            throw TLSError.openSSL("using the certificate and key")
        }
    }

    deinit { SSL_CTX_free(context) }
}

/// One TLS connection over an accepted, non-blocking TCP connection (the server side). Reads and
/// writes never block: OpenSSL's "want read/write" become ``TCPStream/ReadOutcome/wouldBlock`` and
/// a write of 0. Owned by the event loop's thread.
public final class TLSConnection {
    /// The TCP connection underneath (its descriptor is what the loop watches).
    public let stream: TCPStream
    let ssl: OpaquePointer
    /// Whether the handshake is done.
    public private(set) var isEstablished = false

    /// Starts the server side of a handshake on `stream`.
    public init(stream: TCPStream, context: TLSServerContext) throws(TLSError) {
        guard let ssl = SSL_new(context.context) else { throw TLSError.openSSL("SSL_new") }
        self.ssl = ssl
        self.stream = stream
        guard SSL_set_fd(ssl, stream.descriptor.rawValue) == 1 else { throw TLSError.openSSL("SSL_set_fd") }
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// Decrypted bytes OpenSSL holds that the socket will not signal (read them before waiting).
    public var pendingBytes: Int { Int(SSL_pending(ssl)) }

    /// What one step of the handshake gave.
    public enum HandshakeOutcome: Equatable, Sendable {
        case done, inProgress
        /// Not TLS (a plain HTTP request on the port, say), or TLS that failed: `reason` for the count.
        case failed(reason: String)
    }

    /// Goes on with the handshake as far as the socket allows. `SSL_do_handshake(3)`.
    public func handshake() -> HandshakeOutcome {
        guard !isEstablished else { return .done }
        let r = SSL_do_handshake(ssl)
        if r == 1 {
            isEstablished = true
            return .done
        }
        switch SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .inProgress
        default:
            let detail = TLSError.queuedError()
            return .failed(reason: detail.contains("http request") ? "plain HTTP on the TLS port" : detail.isEmpty ? "handshake failed" : detail)
        }
    }

    /// Reads decrypted bytes into `buffer`. `SSL_read(3)`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TCPStream.ReadOutcome {
        ERR_clear_error()
        let r = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if r > 0 { return .bytes(Int(r)) }
        switch SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
        default:
            ERR_clear_error()
            return .closed
        }
    }

    /// Writes as much of `bytes` as TLS and the socket take now: the count (0 when it must wait),
    /// or nil when the connection is gone. `SSL_write(3)`.
    public func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count > 0 else { return 0 }
        ERR_clear_error()
        let r = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        if r > 0 { return Int(r) }
        switch SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return 0
        default:
            ERR_clear_error()
            return nil
        }
    }
}
