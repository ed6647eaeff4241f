import CQRencode
import Mouse3DCore

/// QR codes through Debian's libqrencode: the module matrix of a text, for ``QRText`` to draw.
public enum QRCodeEncoder {
    /// The modules of `text` as a QR code (byte mode, error correction L, the smallest version that
    /// holds it: a phone URL is version 3 or 4, small enough for an 80×24 terminal; a code on a
    /// screen is not soiled or torn, so the lowest level of correction serves), or nil if libqrencode cannot encode it (or cannot be opened: CQRencode's shim.h
    /// says why it is not linked). `QRcode_encodeString(3)`.
    public static func encode(_ text: String) -> QRModules? {
        guard let qrencode = m3d_qrencode()?.pointee else { return nil }
        guard let code = qrencode.QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else { return nil }
        defer { qrencode.QRcode_free(code) }
        let width = Int(code.pointee.width)
        // Each byte is one module; bit 0 set is dark.
        let dark = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
        return QRModules(width: width, dark: dark)
    }
}
