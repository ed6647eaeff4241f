/// Text from outside (a peer's name in a pairing attempt, a paired peer's stored name, a DNS-SD
/// instance or TXT name, a device's name from the kernel) made safe to write to a terminal or a log:
/// every control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F) becomes `\xHH`, so
/// that a name can neither move the cursor, retitle the window, recolour what
/// follows, hide itself with a carriage return, nor forge a line of its own; and every
/// bidirectional control (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) and line or
/// paragraph separator (U+2028–U+2029) becomes `\u{HHHH}`, so that a name cannot reorder what
/// follows it on the line (a "Trojan Source" name) nor break it. Everything else,
/// non-ASCII letters included, is kept. The one function every such name goes through, where it
/// enters (decoders and loaders), so every later use (logs, `pair`, `peers`, JSON) is safe. Escaping
/// twice changes nothing (a stored name escaped when it came is escaped again when it is loaded).
public enum TerminalText {
    /// `text` with control characters escaped.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += scalar.value > 0xFF ? "\\u{" + hex + "}" : "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` is escaped.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: return true
        case 0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028...0x2029: return true
        default: return false
        }
    }
}
