/* Debian's OpenSSL 3 for the phone page's HTTPS: a TLS server context and a self-signed certificate.
   The helpers below stand in for OpenSSL's macros (which Swift cannot call) and keep the
   certificate's making in one place; every call is OpenSSL's own. */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>
#include <string.h>

/* TLS 1.2 at least; writes may be partial and retried from a moved buffer (non-blocking sockets). */
static inline int m3d_ssl_ctx_configure(SSL_CTX *ctx) {
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    return 1;
}

/* The bytes held by a memory BIO (not copied; valid until the BIO changes). */
static inline long m3d_bio_contents(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* Adds an X.509 v3 extension given as OpenSSL's configuration text (e.g. "DNS:a,IP:1.2.3.4"). */
static inline int m3d_x509_add_extension(X509 *cert, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

/* A new P-256 key and a self-signed certificate for it, valid from an hour ago for `days` days, named
   `common_name`, for the subject alternative names `san` ("DNS:...,IP:..."), server authentication
   only. Both are written as PEM to `key_out` and `cert_out` (memory BIOs). 1 on success. */
static inline int m3d_make_self_signed(const char *common_name, const char *san, long days, BIO *key_out, BIO *cert_out) {
    int ok = 0;
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    EVP_PKEY_CTX *kctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (!kctx || EVP_PKEY_keygen_init(kctx) != 1 || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(kctx, NID_X9_62_prime256v1) != 1
        || EVP_PKEY_keygen(kctx, &key) != 1) goto done;
    cert = X509_new();
    if (!cert || X509_set_version(cert, 2) != 1) goto done;
    unsigned char serial[16];
    if (RAND_bytes(serial, sizeof serial) != 1) goto done;
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert))) { BN_free(bn); goto done; }
    BN_free(bn);
    if (!X509_gmtime_adj(X509_getm_notBefore(cert), -3600) || !X509_gmtime_adj(X509_getm_notAfter(cert), days * 86400)) goto done;
    if (X509_set_pubkey(cert, key) != 1) goto done;
    X509_NAME *name = X509_get_subject_name(cert);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1) goto done;
    if (X509_set_issuer_name(cert, name) != 1) goto done;
    if (!m3d_x509_add_extension(cert, NID_subject_alt_name, san)
        || !m3d_x509_add_extension(cert, NID_ext_key_usage, "serverAuth")
        || !m3d_x509_add_extension(cert, NID_key_usage, "critical,digitalSignature")
        || !m3d_x509_add_extension(cert, NID_basic_constraints, "critical,CA:FALSE")) goto done;
    if (X509_sign(cert, key, EVP_sha256()) <= 0) goto done;
    if (PEM_write_bio_PrivateKey(key_out, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;
    if (PEM_write_bio_X509(cert_out, cert) != 1) goto done;
    ok = 1;
done:
    X509_free(cert);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(kctx);
    return ok;
}
