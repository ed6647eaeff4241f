/// Who may drive the pointer from a phone's page. The printed URL's token admits one phone, once:
/// the page that shows it first is handed a secret of its own over its socket, and the token is
/// spent as soon as the page says it kept the secret (or uses it to reconnect): a connection lost
/// before that leaves the token to the same phone's retry. From then on that phone reconnects with
/// its secret (kept by the page), and anyone else who saw the URL or the QR code is turned away. With `--phone-remember` the secret is remembered
/// across runs (stored by the caller, revoked with `pair --revoke phone`); without, it lasts the run.
/// Pure: the phone source asks, this answers; every comparison takes the same time wherever the
/// strings differ.
public struct PhoneCredentials: Sendable, Equatable {
    /// The URL's token (fresh each run).
    public let urlToken: String
    /// Whether it has admitted its phone.
    public private(set) var urlTokenSpent = false
    /// Whether a phone's secret outlives the run.
    public let remembers: Bool
    /// The secrets handed out this run and, with ``remembers``, the phones remembered before it.
    public private(set) var secrets: [String]
    /// The most phones remembered: a new one past it pushes out the one remembered longest ago.
    public static let maximumRemembered = 8

    /// What a presented credential is.
    public enum Check: Sendable, Equatable {
        /// The URL's token, not yet spent: a new phone.
        case newPhone
        /// A phone's secret: a phone admitted before.
        case knownPhone
        /// The URL's token after it admitted its phone.
        case spentToken
        /// Nothing this run knows (an earlier run's token, a mistyped one, a revoked phone's secret).
        case unknown
    }

    /// A new URL token: 128 random bits (the system's generator) in base64url without padding, 22
    /// characters: 10 fewer than hexadecimal, so that the URL and its QR code fit a default 80×24
    /// terminal (a QR code of version 3 or 4 at level L).
    public static func makeURLToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let words: [UInt64] = [generator.next(), generator.next()]
        let bytes = words.flatMap { w in (0..<8).map { UInt8(truncatingIfNeeded: w >> (8 * $0)) } }
        return String(Base64.encode(bytes).prefix(22).map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    public init(urlToken: String, remembers: Bool, remembered: [String] = []) {
        self.urlToken = urlToken
        self.remembers = remembers
        secrets = remembers ? Array(remembered.suffix(Self.maximumRemembered)) : []
    }

    /// What `presented` is. Every secret is compared, whichever matches.
    public func check(_ presented: some StringProtocol) -> Check {
        var known = false
        for s in secrets where WebAccessPolicy.equal(presented, s) { known = true }
        if known { return .knownPhone }
        guard WebAccessPolicy.equal(presented, urlToken) else { return .unknown }
        return urlTokenSpent ? .spentToken : .newPhone
    }

    /// The secrets handed out and not yet kept by their page: the URL's token is not spent for them.
    public private(set) var unconfirmed: [String] = []

    /// Hands a new phone `secret`, valid at once; the URL's token stays unspent until the page says
    /// it kept the secret (``confirm(_:)``).
    public mutating func admitNewPhone(secret: String) {
        unconfirmed.append(secret)
        secrets.append(secret)
    }

    /// The page kept `secret` (it said so, or reconnected with it): the URL's token is spent. The
    /// secrets to remember afterwards (empty when they last only the run, or nothing changed).
    public mutating func confirm(_ secret: String) -> [String] {
        guard let i = unconfirmed.firstIndex(where: { WebAccessPolicy.equal($0, secret) }) else { return [] }
        unconfirmed.remove(at: i)
        urlTokenSpent = true
        // The other secrets handed for the token and never kept go: only the phone that kept one stays.
        secrets.removeAll { s in unconfirmed.contains { WebAccessPolicy.equal($0, s) } }
        unconfirmed.removeAll()
        if remembers && secrets.count > Self.maximumRemembered {
            secrets.removeFirst(secrets.count - Self.maximumRemembered)
        }
        return remembers ? secrets : []
    }
}
