extension Substring {
    /// Without leading spaces and tabs, or trailing spaces, tabs and a carriage return.
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
