/* Debian's OpenSSL 3 for the phone page's HTTPS: a TLS server context and a self-signed certificate.

   OpenSSL is opened when TLS is first needed (dlopen), not linked: linked, the loader reads
   libcrypto's relocations and relocates its tables in every process, 1.2 MB resident in a `send` or
   `receive` that never speaks TLS (bench stream: peak RSS). The headers give the types;
   M3D_OPENED_LIBRARY (CLinux/opened_library.h) declares the table and m3d_openssl(), which opens
   the libraries on first use. The helpers stand in for OpenSSL's macros (which Swift cannot call)
   and keep the certificate's making in one place; every call is OpenSSL's own. */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>
#include <string.h>
#include "../CLinux/opened_library.h"

/* The library file names opened (scripts/build-deb.sh adds their packages to Depends). */
#define M3D_LIBSSL "libssl.so.3"
#define M3D_LIBCRYPTO "libcrypto.so.3"

#define M3D_OPENSSL_FUNCTIONS(F) \
    F(ASN1_TIME_diff) F(BIO_ctrl) F(BIO_free) F(BIO_new) F(BIO_new_mem_buf) F(BIO_s_mem) F(BN_bin2bn) \
    F(BN_free) F(BN_to_ASN1_INTEGER) F(ERR_clear_error) F(ERR_error_string_n) F(ERR_get_error) \
    F(EVP_PKEY_CTX_free) F(EVP_PKEY_CTX_new_id) F(EVP_PKEY_CTX_set_ec_paramgen_curve_nid) F(EVP_PKEY_free) \
    F(EVP_PKEY_keygen) F(EVP_PKEY_keygen_init) F(EVP_sha256) F(GENERAL_NAME_print) F(GENERAL_NAMES_free) \
    F(OPENSSL_sk_num) F(OPENSSL_sk_value) F(PEM_read_bio_PrivateKey) F(PEM_read_bio_X509) \
    F(PEM_write_bio_PrivateKey) F(PEM_write_bio_X509) F(RAND_bytes) F(SSL_CTX_check_private_key) \
    F(SSL_CTX_ctrl) F(SSL_CTX_free) F(SSL_CTX_new) F(SSL_CTX_set_cipher_list) F(SSL_CTX_set_ciphersuites) \
    F(SSL_CTX_set_options) F(SSL_CTX_set_verify) \
    F(SSL_CTX_use_PrivateKey) F(SSL_CTX_use_certificate) F(SSL_connect) F(SSL_do_handshake) F(SSL_free) \
    F(SSL_get_error) F(SSL_get_state) F(SSL_new) F(SSL_pending) F(SSL_read) F(SSL_set_accept_state) F(SSL_set_fd) \
    F(SSL_write) F(TLS_client_method) F(TLS_server_method) F(X509_EXTENSION_free) F(X509_add_ext) \
    F(X509_digest) F(X509_free) F(X509_get_ext_d2i) F(X509_get_serialNumber) F(X509_get_subject_name) \
    F(X509_getm_notAfter) F(X509_getm_notBefore) F(X509_gmtime_adj) F(X509_NAME_add_entry_by_txt) \
    F(X509_new) F(X509_set_issuer_name) F(X509_set_pubkey) F(X509_set_version) F(X509_sign) \
    F(X509V3_EXT_conf_nid) F(X509V3_set_ctx)

M3D_OPENED_LIBRARY(openssl, M3D_OPENSSL_FUNCTIONS, M3D_LIBSSL, M3D_LIBCRYPTO)

/* What the server offers, written down. The key exchange is the handshake's cost to the server, and
   a client chooses it: with OpenSSL 3's defaults a TLS 1.3 ClientHello whose only key share is
   ffdhe8192 costs the server 118 ms of CPU (ffdhe4096 20 ms, ffdhe2048 3.5 ms), so anyone on the
   network could hold the event loop with a few precomputed hellos. Only X25519 and P-256 are
   offered: 0.5 ms a handshake with the P-256 key's signature (README, "What a handshake costs").
   Every browser offers both. A hello with neither gets a handshake_failure alert, at no cost.
   Signatures: ECDSA with SHA-256 (the certificate's P-256 key). TLS 1.3 suites: AES-GCM and
   ChaCha20-Poly1305; TLS 1.2: the same as ECDHE-ECDSA (no DHE, no RSA key exchange, no CBC). */
#define M3D_TLS_GROUPS "X25519:P-256"
#define M3D_TLS_SIGALGS "ECDSA+SHA256"
#define M3D_TLS13_SUITES "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
#define M3D_TLS12_CIPHERS "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305"

/* TLS 1.2 at least, the groups, signatures and suites above; writes may be partial and retried from
   a moved buffer (non-blocking sockets). (SSL_CTX_set_min_proto_version, SSL_CTX_set1_groups_list,
   SSL_CTX_set1_sigalgs_list and SSL_CTX_set_mode are macros over SSL_CTX_ctrl.) */
static inline int m3d_ssl_ctx_configure(const struct m3d_openssl *o, SSL_CTX *ctx) {
    if (o->SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL) != 1) return 0;
    if (o->SSL_CTX_ctrl(ctx, SSL_CTRL_SET_GROUPS_LIST, 0, (char *)M3D_TLS_GROUPS) != 1) return 0;
    if (o->SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SIGALGS_LIST, 0, (char *)M3D_TLS_SIGALGS) != 1) return 0;
    if (o->SSL_CTX_set_ciphersuites(ctx, M3D_TLS13_SUITES) != 1) return 0;
    if (o->SSL_CTX_set_cipher_list(ctx, M3D_TLS12_CIPHERS) != 1) return 0;
    o->SSL_CTX_ctrl(ctx, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
    o->SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    return 1;
}

/* The bytes held by a memory BIO (not copied; valid until the BIO changes). BIO_get_mem_data. */
static inline long m3d_bio_contents(const struct m3d_openssl *o, BIO *bio, char **data) {
    return o->BIO_ctrl(bio, BIO_CTRL_INFO, 0, (char *)data);
}

/* Adds an X.509 v3 extension given as OpenSSL's configuration text (e.g. "DNS:a,IP:1.2.3.4"). */
static inline int m3d_x509_add_extension(const struct m3d_openssl *o, X509 *cert, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    o->X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = o->X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext) return 0;
    int ok = o->X509_add_ext(cert, ext, -1);
    o->X509_EXTENSION_free(ext);
    return ok;
}

/* A new P-256 key and a self-signed certificate for it, valid from an hour ago for `days` days, named
   `common_name`, for the subject alternative names `san` ("DNS:...,IP:..."), server authentication
   only. Both are written as PEM to `key_out` and `cert_out` (memory BIOs). 1 on success. */
static inline int m3d_make_self_signed(const struct m3d_openssl *o, const char *common_name,
                                       const char *san, long days, BIO *key_out,
                                       BIO *cert_out) {
    int ok = 0;
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    EVP_PKEY_CTX *kctx = o->EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (!kctx || o->EVP_PKEY_keygen_init(kctx) != 1
        || o->EVP_PKEY_CTX_set_ec_paramgen_curve_nid(kctx, NID_X9_62_prime256v1) != 1
        || o->EVP_PKEY_keygen(kctx, &key) != 1) goto done;
    cert = o->X509_new();
    if (!cert || o->X509_set_version(cert, 2) != 1) goto done;
    unsigned char serial[16];
    if (o->RAND_bytes(serial, sizeof serial) != 1) goto done;
    serial[0] &= 0x7f;
    BIGNUM *bn = o->BN_bin2bn(serial, sizeof serial, NULL);
    if (!bn || !o->BN_to_ASN1_INTEGER(bn, o->X509_get_serialNumber(cert))) { o->BN_free(bn); goto done; }
    o->BN_free(bn);
    if (!o->X509_gmtime_adj(o->X509_getm_notBefore(cert), -3600)
        || !o->X509_gmtime_adj(o->X509_getm_notAfter(cert), days * 86400)) goto done;
    if (o->X509_set_pubkey(cert, key) != 1) goto done;
    X509_NAME *name = o->X509_get_subject_name(cert);
    if (o->X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1)
        goto done;
    if (o->X509_set_issuer_name(cert, name) != 1) goto done;
    if (!m3d_x509_add_extension(o, cert, NID_subject_alt_name, san)
        || !m3d_x509_add_extension(o, cert, NID_ext_key_usage, "serverAuth")
        || !m3d_x509_add_extension(o, cert, NID_key_usage, "critical,digitalSignature")
        || !m3d_x509_add_extension(o, cert, NID_basic_constraints, "critical,CA:FALSE")) goto done;
    if (o->X509_sign(cert, key, o->EVP_sha256()) <= 0) goto done;
    if (o->PEM_write_bio_PrivateKey(key_out, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;
    if (o->PEM_write_bio_X509(cert_out, cert) != 1) goto done;
    ok = 1;
done:
    o->X509_free(cert);
    o->EVP_PKEY_free(key);
    o->EVP_PKEY_CTX_free(kctx);
    return ok;
}
