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
    public static func make(commonName: String, names: [String], addresses: [String], days: Int = 825) throws(TLSError)
        -> SelfSignedCertificate
    {
        let san = (names.map { "DNS:\($0)" } + addresses.map { "IP:\($0)" }).joined(separator: ",")
        guard let keyBIO = BIO_new(BIO_s_mem()), let certBIO = BIO_new(BIO_s_mem()) else {
            throw TLSError.openSSL("BIO_new")
        }
        defer {
            BIO_free(keyBIO)
            BIO_free(certBIO)
        }
        guard m3d_make_self_signed(commonName, san, days, keyBIO, certBIO) == 1 else {
            throw TLSError.openSSL("making the certificate")
        }
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
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_getm_notAfter(cert)) == 1 else {
            throw TLSError.openSSL("ASN1_TIME_diff")
        }
        return Int(days) * 86400 + Int(seconds)
    }

    static func loadCertificate(_ pem: [UInt8]) throws(TLSError) -> OpaquePointer {
        try read(pem, "the certificate") { PEM_read_bio_X509($0, nil, nil, nil) }
    }

    static func loadKey(_ pem: [UInt8]) throws(TLSError) -> OpaquePointer {
        try read(pem, "the key") { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    /// What `reader` makes of `pem`, through a memory BIO; `what` names it in the error.
    static func read(_ pem: [UInt8], _ what: String, _ reader: (OpaquePointer) -> OpaquePointer?) throws(TLSError)
        -> OpaquePointer
    {
        let made: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return reader(bio)
        }
        guard let made else { throw TLSError.openSSL("reading \(what)") }
        return made
    }
}
