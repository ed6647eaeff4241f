import Mouse3DCore
import Mouse3DLinux

/// Checks one datagram against the receiver's wire format: a sealed datagram's tag and replay
/// window (through the opener), a plain datagram's header, a bare frame's size; the angles always.
struct DatagramVerifier {
    /// What is accepted.
    let format: WireFormat
    /// Opens sealed datagrams (format `.sealed` only).
    let opener: SealedStreamOpener?

    /// Checks `bytes`, the first of a datagram of `length` bytes, arrived at `now`. `inBackground`:
    /// sessions are stored in the background (``SealedStreamOpener/open(_:from:inBackground:now:)``).
    func verify(
        _ bytes: UnsafeRawBufferPointer, length: Int, from source: SocketAddress? = nil, inBackground: Bool, now: UInt64
    ) -> Opening {
        guard length == bytes.count else { return .refused(.oversized) }
        switch format {
        case .sealed:
            // Optional chaining, not `guard let`: a bound copy was retained and released per datagram.
            return opener?.open(bytes, from: source, inBackground: inBackground, now: now) ?? .refused(.notMouse3D)
        case .datagram:
            switch AttitudeDatagram.decode(bytes) {
            case .success(let d): return .frame(VerifiedDatagram(datagram: d))
            case .failure(.wrongSize): return .refused(.wrongSize)
            case .failure(.badMagic): return .refused(.badMagic)
            case .failure(.unsupportedVersion): return .refused(.unsupportedVersion)
            case .failure(.unsupportedKind): return .refused(.unsupportedKind)
            case .failure(.invalidFrame): return .refused(.invalidAngles)
            }
        case .raw:
            guard length == AttitudeFrame.byteCount else { return .refused(.wrongSize) }
            guard let frame = AttitudeFrame.decode(bytes) else { return .refused(.invalidAngles) }
            // A raw peer has no clutch: its motion always counts.
            return .frame(
                VerifiedDatagram(
                    datagram: AttitudeDatagram(
                        streamID: 0, sequence: 0, sentNanoseconds: 0, buttons: [.clutch], frame: frame)))
        }
    }
}
