/// Why a datagram or a pairing message was refused: the one vocabulary of counters, log lines, the
/// exit summary and `--stats`. Its ``description`` is the short label printed for it.
public enum Refusal: Int, Error, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    // The datagram's shape.
    /// Longer than any mouse3d datagram (truncated on reading).
    case oversized
    /// Not the size of the datagram kind it claims.
    case wrongSize
    /// Not starting with mouse3d's magic.
    case badMagic
    /// A datagram version this receiver does not speak.
    case unsupportedVersion
    /// A datagram kind this receiver does not take.
    case unsupportedKind
    /// Not a mouse3d datagram at all (a sealed receiver's view).
    case notMouse3D
    /// A plain datagram or a bare frame where only sealed ones are taken.
    case unsealed
    /// Angles that are not finite or out of range.
    case invalidAngles

    // Authentication (sealed streams).
    /// A sender id that is not paired here.
    case unknownSender
    /// The tag did not verify: forged, damaged, or sealed under another key.
    case badTag
    /// An epoch older than the sender's current one.
    case staleEpoch
    /// A sequence number already seen, below the stored floor, or behind the replay window.
    case replayed
    /// Authentic, but the state that would refuse its replay after a crash could not be stored.
    case notStored
    /// Not a refusal: authentic, the first of a new session, held until the session's state is
    /// stored (in the background), then delivered. Never counted or reported.
    case awaitingStorage

    // Budgets.
    /// Dropped unread: the source kept sending what was refused.
    case rateLimited
    /// A link probe that is not a paired sender's, or does not verify.
    case badLinkProbe

    // Pairing.
    /// A pairing message that does not decode, or carries an invalid key share.
    case malformedPairingMessage
    /// A pairing hello while another sender's exchange is under way.
    case pairingBusy
    /// A pairing confirmation that shows the sender did not know the code.
    case wrongCode

    /// The short label: `bad tag`, `stale session`, ...
    public var description: String {
        switch self {
        case .oversized: "oversized"
        case .wrongSize: "wrong size"
        case .badMagic: "bad magic"
        case .unsupportedVersion: "unsupported version"
        case .unsupportedKind: "unsupported kind"
        case .notMouse3D: "not mouse3d"
        case .unsealed: "unsealed"
        case .invalidAngles: "invalid angles"
        case .unknownSender: "unknown sender"
        case .badTag: "bad tag"
        case .staleEpoch: "stale session"
        case .replayed: "replayed"
        case .notStored: "not stored"
        case .awaitingStorage: "awaiting storage"
        case .rateLimited: "rate limited"
        case .badLinkProbe: "bad link probe"
        case .malformedPairingMessage: "malformed pairing message"
        case .pairingBusy: "pairing busy"
        case .wrongCode: "wrong code"
        }
    }

    /// What it means for the user, and what to do, for the log line that reports it.
    public var advice: String {
        switch self {
        case .unsealed:
            "unsealed frames; pair that sender (`mouse3d pair`), or accept unauthenticated frames with receive --insecure"
        case .unknownSender:
            "not paired here; run `mouse3d pair` to pair it"
        case .badTag:
            "authentication failed (forged, damaged, or a stale key: pair again if it is yours)"
        case .staleEpoch:
            "an old session (a replay, or the sender's key file was restored from an older copy: pair again)"
        case .notStored:
            "the session state could not be stored (see the error above); refused rather than risk a replay after a crash"
        case .rateLimited:
            "too many refused datagrams: this source's traffic is dropped unread for now"
        default:
            description
        }
    }
}
