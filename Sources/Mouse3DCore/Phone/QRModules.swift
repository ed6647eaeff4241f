/// A QR code's modules: `width` × `width`, row by row, true where dark.
public struct QRModules: Sendable, Equatable {
    public var width: Int
    public var dark: [Bool]

    public init(width: Int, dark: [Bool]) {
        self.width = width
        self.dark = dark
    }

    /// Whether the module at `row`, `column` is dark (outside: light, the quiet zone).
    public func isDark(_ row: Int, _ column: Int) -> Bool {
        row >= 0 && row < width && column >= 0 && column < width && dark[row * width + column]
    }
}
