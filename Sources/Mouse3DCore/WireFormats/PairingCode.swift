/// The short code `mouse3d pair` shows on the receiver and the user types on the sender: eight
/// decimal digits, shown as `1234-5678`. It is the password of a PAKE (CPace), so an eavesdropper
/// learns nothing from a pairing and an active attacker gets one guess in 10^8 per pairing attempt.
public struct PairingCode: Sendable, Equatable, CustomStringConvertible {
    /// The eight digits.
    public let digits: String

    /// How many digits a code has.
    public static let length = 8

    /// A new random code.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> PairingCode {
        let value = UInt32.random(in: 0..<100_000_000, using: &generator)
        let text = String(value)
        return PairingCode(validDigits: String(repeating: "0", count: length - text.count) + text)
    }

    /// A new random code from the system's secure generator.
    public static func random() -> PairingCode {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(validDigits: String) { digits = validDigits }

    /// Parses what a user typed: eight digits, with any spaces or dashes between them.
    public init?(parsing text: String) {
        let kept = text.filter { $0 != "-" && $0 != " " }
        guard kept.count == Self.length, kept.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        digits = kept
    }

    /// `1234-5678`.
    public var description: String { "\(digits.prefix(4))-\(digits.suffix(4))" }
}
