/// A QR code drawn in a terminal with UTF-8 half blocks: two rows of modules per line of text, with
/// a quiet zone of two modules. Dark modules are drawn as spaces and light ones as blocks, so the
/// code reads right on a terminal with a dark background (the usual one; cameras read the inverse
/// too); with `colours`, black and white are set explicitly, so it reads on any background.
public enum QRText {
    /// The lines of text that draw `code`.
    public static func lines(_ code: QRModules, colours: Bool = false) -> [String] {
        let quiet = 2
        let range = -quiet..<(code.width + quiet)
        var lines: [String] = []
        var row = -quiet
        while row < code.width + quiet {
            var line = colours ? "\u{1B}[97;40m" : ""  // white on black: a light module is foreground
            for column in range {
                let top = !code.isDark(row, column)
                let bottom = row + 1 < code.width + quiet && !code.isDark(row + 1, column)
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line + (colours ? "\u{1B}[0m" : ""))
            row += 2
        }
        return lines
    }
}
