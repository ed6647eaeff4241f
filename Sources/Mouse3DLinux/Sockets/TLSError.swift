import COpenSSL
import Glibc
import SystemPackage

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
