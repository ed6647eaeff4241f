/// The page's touch areas.
public struct PhoneButtons: OptionSet, Sendable, Equatable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let left = PhoneButtons(rawValue: 1), right = PhoneButtons(rawValue: 2)
    public static let recenter = PhoneButtons(rawValue: 4), holdToMove = PhoneButtons(rawValue: 8)
}
