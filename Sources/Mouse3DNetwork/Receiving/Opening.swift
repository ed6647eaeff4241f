import Mouse3DCore

/// What opening one datagram came to. The opener only answers: storing what must be stored, holding
/// a datagram and saying a session started are the receiver's to do, so nothing calls back into it.
public enum Opening {
    /// Accepted: its frame.
    case frame(VerifiedDatagram)
    /// Accepted, and news with it (rare: once per session start and per renewal). `started`: the
    /// sender's record, when this datagram started a new session (worth saying); `storeAhead`: a
    /// reservation to store in the background now, then report with
    /// ``SealedStreamOpener/reservationStored(_:stored:)``.
    indirect case frameWithNews(VerifiedDatagram, started: PairedPeer?, storeAhead: PairedPeer?)
    /// Authentic, the first of a new session being stored in the background: hold it, and offer it
    /// again when ``SealedStreamOpener/reservationStored(_:stored:)`` says so. `store`: the record to
    /// store in the background now (nil: its store is under way).
    indirect case hold(store: PairedPeer?)
    /// Authentic, but a new epoch or a sequence beyond the reservation: store the record durably now,
    /// then finish with ``SealedStreamOpener/finishAfterStore(stored:)`` (before opening another).
    indirect case storeFirst(PairedPeer)
    /// Refused.
    case refused(Refusal)

    /// The frame, if this opening accepted one.
    public var verified: VerifiedDatagram? {
        switch self {
        case .frame(let v), .frameWithNews(let v, _, _): v
        default: nil
        }
    }

    /// The refusal, if this opening was one (holding counts as `.awaitingStorage`).
    public var refusal: Refusal? {
        switch self {
        case .refused(let r): r
        case .hold: .awaitingStorage
        default: nil
        }
    }
}
