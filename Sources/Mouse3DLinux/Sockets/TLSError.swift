import COpenSSL
import Glibc
import SystemPackage

/// What went wrong in OpenSSL.
public enum TLSError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A call failed; `what` names it, with OpenSSL's first queued error.
    case openSSL(String, detail: String = TLSError.queuedError())
    /// OpenSSL could not be opened; `reason` is the loader's.
    case unavailable(String)

    public var description: String {
        switch self {
        case .openSSL(let what, let detail): "OpenSSL: \(what) failed" + (detail.isEmpty ? "" : " (\(detail))")
        case .unavailable(let reason):
            "TLS needs OpenSSL 3, which could not be opened (\(reason)); install it: sudo apt install libssl3"
        }
    }

    /// OpenSSL's oldest queued error as text (the queue is cleared); empty when OpenSSL cannot be
    /// opened (every caller comes after an OpenSSL call, so it is open by then).
    public static func queuedError() -> String {
        guard let lib = try? OpenSSLLibrary.functions() else { return "" }
        let code = lib.pointee.ERR_get_error()
        lib.pointee.ERR_clear_error()
        guard code != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        lib.pointee.ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
