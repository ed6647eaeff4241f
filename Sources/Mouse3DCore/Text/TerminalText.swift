/// Text from outside (a peer's name in a pairing attempt, a paired peer's stored name, a DNS-SD
/// instance or TXT name, a device's name from the kernel) made safe to write to a terminal or a log:
/// every control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F) becomes `\xHH`, so
/// that a name can neither move the cursor, retitle the window, recolour what
/// follows, hide itself with a carriage return, nor forge a line of its own. Everything else,
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
                out += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` is escaped.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }
}
