import COpenSSL
import Glibc
import SystemPackage

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
        guard SSL_CTX_use_certificate(ctx, cert) == 1, SSL_CTX_use_PrivateKey(ctx, key) == 1,
            SSL_CTX_check_private_key(ctx) == 1
        else {
            throw TLSError.openSSL("using the certificate and key")
        }
    }

    deinit { SSL_CTX_free(context) }
}
