/// DNS-SD service instance names (RFC 6763 §4.1.1): what to try when a name is taken on the link.
public enum ServiceInstanceName {
    /// The name to try after `name` collided, as Avahi's own clients pick it: `NAME #2`, then
    /// `NAME #3` and so on, kept within the 63 bytes of a DNS label (the base is cut on a character
    /// boundary to make room for the number).
    public static func alternative(to name: String) -> String {
        var base = Substring(name)
        var number = 2
        if let hash = name.lastIndex(of: "#"), hash > name.startIndex, name[name.index(before: hash)] == " " {
            let digits = name[name.index(after: hash)...]
            if !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits)
            {
                base = name[..<name.index(before: hash)]
                number = n + 1
            }
        }
        let suffix = " #\(number)"
        while base.utf8.count + suffix.utf8.count > 63, !base.isEmpty { base = base.dropLast() }
        return base + suffix
    }
}
