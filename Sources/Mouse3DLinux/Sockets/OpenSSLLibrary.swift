import COpenSSL

/// Debian's OpenSSL 3, opened the first time TLS is needed: linked, it costs every process 1.2 MB
/// resident whether or not it speaks TLS (COpenSSL's shim.h says how the functions are found).
enum OpenSSLLibrary {
    /// OpenSSL's functions, or why the library could not be opened.
    static func functions() throws(TLSError) -> UnsafePointer<m3d_openssl> {
        guard let table = m3d_openssl() else { throw TLSError.unavailable(String(cString: m3d_openssl_error())) }
        return table
    }
}
