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
        let lib = try OpenSSLLibrary.functions()
        guard let keyBIO = lib.pointee.BIO_new(lib.pointee.BIO_s_mem()),
            let certBIO = lib.pointee.BIO_new(lib.pointee.BIO_s_mem())
        else {
            throw TLSError.openSSL("BIO_new")
        }
        defer {
            _ = lib.pointee.BIO_free(keyBIO)
            _ = lib.pointee.BIO_free(certBIO)
        }
        guard m3d_make_self_signed(lib, commonName, san, days, keyBIO, certBIO) == 1 else {
            throw TLSError.openSSL("making the certificate")
        }
        return SelfSignedCertificate(certificatePEM: contents(certBIO, lib), keyPEM: contents(keyBIO, lib))
    }

    static func contents(_ bio: OpaquePointer, _ lib: UnsafePointer<m3d_openssl>) -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        let n = m3d_bio_contents(lib, bio, &data)
        guard n > 0, let data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: n))
    }

    /// The SHA-256 fingerprint of the certificate (its DER), as browsers show it: `AB:CD:...`.
    public func fingerprint() throws(TLSError) -> String {
        let lib = try OpenSSLLibrary.functions()
        let cert = try Self.loadCertificate(certificatePEM, lib)
        defer { lib.pointee.X509_free(cert) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard lib.pointee.X509_digest(cert, lib.pointee.EVP_sha256(), &digest, &length) == 1 else {
            throw TLSError.openSSL("X509_digest")
        }
        let hex = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 15)]]) }.joined(separator: ":")
    }

    /// The names and addresses the certificate is for (its subject alternative names, as text).
    public func subjectAlternativeNames() throws(TLSError) -> [String] {
        let lib = try OpenSSLLibrary.functions()
        let cert = try Self.loadCertificate(certificatePEM, lib)
        defer { lib.pointee.X509_free(cert) }
        guard let raw = lib.pointee.X509_get_ext_d2i(cert, NID_subject_alt_name, nil, nil) else { return [] }
        let names = OpaquePointer(raw)
        defer { lib.pointee.GENERAL_NAMES_free(names) }
        var out: [String] = []
        for i in 0..<lib.pointee.OPENSSL_sk_num(names) {
            guard let entry = lib.pointee.OPENSSL_sk_value(names, i)?.assumingMemoryBound(to: GENERAL_NAME.self)
            else { continue }
            guard let bio = lib.pointee.BIO_new(lib.pointee.BIO_s_mem()) else { throw TLSError.openSSL("BIO_new") }
            defer { _ = lib.pointee.BIO_free(bio) }
            _ = lib.pointee.GENERAL_NAME_print(bio, entry)
            out.append(String(decoding: Self.contents(bio, lib), as: UTF8.self))
        }
        return out
    }

    /// Whether the certificate is for the numeric `address` (IPv4 or IPv6, compared as addresses,
    /// not as text: OpenSSL writes IPv6 ones uncompressed).
    public func covers(address: String) throws(TLSError) -> Bool {
        guard let wanted = Self.addressBytes(address) else { return false }
        return try subjectAlternativeNames().contains { name in
            name.hasPrefix("IP Address:") && Self.addressBytes(String(name.dropFirst("IP Address:".count))) == wanted
        }
    }

    /// The bytes of a numeric address written either way, or nil.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Seconds until the certificate expires (negative once it has).
    public func secondsLeft() throws(TLSError) -> Int {
        let lib = try OpenSSLLibrary.functions()
        let cert = try Self.loadCertificate(certificatePEM, lib)
        defer { lib.pointee.X509_free(cert) }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard lib.pointee.ASN1_TIME_diff(&days, &seconds, nil, lib.pointee.X509_getm_notAfter(cert)) == 1 else {
            throw TLSError.openSSL("ASN1_TIME_diff")
        }
        return Int(days) * 86400 + Int(seconds)
    }

    static func loadCertificate(_ pem: [UInt8], _ lib: UnsafePointer<m3d_openssl>) throws(TLSError) -> OpaquePointer {
        try read(pem, "the certificate", lib) { lib.pointee.PEM_read_bio_X509($0, nil, nil, nil) }
    }

    static func loadKey(_ pem: [UInt8], _ lib: UnsafePointer<m3d_openssl>) throws(TLSError) -> OpaquePointer {
        try read(pem, "the key", lib) { lib.pointee.PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    /// What `reader` makes of `pem`, through a memory BIO; `what` names it in the error.
    static func read(
        _ pem: [UInt8], _ what: String, _ lib: UnsafePointer<m3d_openssl>, _ reader: (OpaquePointer) -> OpaquePointer?
    ) throws(TLSError) -> OpaquePointer {
        let made: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = lib.pointee.BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { _ = lib.pointee.BIO_free(bio) }
            return reader(bio)
        }
        guard let made else { throw TLSError.openSSL("reading \(what)") }
        return made
    }
}
