import Mouse3DCore
import Mouse3DLinux

/// Checks one datagram against the receiver's wire format: a sealed datagram's tag and replay
/// window (through the opener), a plain datagram's header, a bare frame's size; the angles always.
struct DatagramVerifier {
    /// What is accepted.
    let format: WireFormat
    /// Opens sealed datagrams (format `.sealed` only).
    let opener: SealedStreamOpener?

    /// Checks `bytes`, the first of a datagram of `length` bytes.
    func verify(_ bytes: UnsafeRawBufferPointer, length: Int, from source: SocketAddress? = nil) -> Result<
        VerifiedDatagram, Refusal
    > {
        guard length == bytes.count else { return .failure(.oversized) }
        switch format {
        case .sealed:
            guard let opener else { return .failure(.notMouse3D) }
            return opener.open(bytes, from: source)
        case .datagram:
            switch AttitudeDatagram.decode(bytes) {
            case .success(let d): return .success(VerifiedDatagram(datagram: d))
            case .failure(.wrongSize): return .failure(.wrongSize)
            case .failure(.badMagic): return .failure(.badMagic)
            case .failure(.unsupportedVersion): return .failure(.unsupportedVersion)
            case .failure(.unsupportedKind): return .failure(.unsupportedKind)
            case .failure(.invalidFrame): return .failure(.invalidAngles)
            }
        case .raw:
            guard length == AttitudeFrame.byteCount else { return .failure(.wrongSize) }
            guard let frame = AttitudeFrame.decode(bytes) else { return .failure(.invalidAngles) }
            // A raw peer has no clutch: its motion always counts.
            return .success(
                VerifiedDatagram(
                    datagram: AttitudeDatagram(
                        streamID: 0, sequence: 0, sentNanoseconds: 0, buttons: [.clutch], frame: frame)))
        }
    }
}
