import COpenSSL
import Glibc
import SystemPackage

/// A TLS server context: one certificate and key, TLS 1.2 or later.
public final class TLSServerContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is only read after init (OpenSSL's contexts are safe to share then).
    let context: OpaquePointer
    /// OpenSSL's functions (open for as long as the process runs).
    let lib: UnsafePointer<m3d_openssl>

    /// A context serving `certificate`.
    public init(certificate: SelfSignedCertificate) throws(TLSError) {
        let lib = try OpenSSLLibrary.functions()
        self.lib = lib
        guard let ctx = lib.pointee.SSL_CTX_new(lib.pointee.TLS_server_method()) else {
            throw TLSError.openSSL("SSL_CTX_new")
        }
        context = ctx
        guard m3d_ssl_ctx_configure(lib, ctx) == 1 else { throw TLSError.openSSL("configuring TLS") }
        let cert = try SelfSignedCertificate.loadCertificate(certificate.certificatePEM, lib)
        defer { lib.pointee.X509_free(cert) }
        let key = try SelfSignedCertificate.loadKey(certificate.keyPEM, lib)
        defer { lib.pointee.EVP_PKEY_free(key) }
        guard lib.pointee.SSL_CTX_use_certificate(ctx, cert) == 1, lib.pointee.SSL_CTX_use_PrivateKey(ctx, key) == 1,
            lib.pointee.SSL_CTX_check_private_key(ctx) == 1
        else {
            throw TLSError.openSSL("using the certificate and key")
        }
    }

    deinit { lib.pointee.SSL_CTX_free(context) }
}
