import Mouse3DCore
import Mouse3DLinux

/// The key that authenticates link probes between two paired peers: HKDF-SHA256 of the pairing
/// secret with its own label, so it has nothing in common with the frame keys. Requests and
/// replies differ in their kind byte, which the tag covers.
public struct LinkProbeKey: Sendable {
    private let key: [UInt8]

    /// The probe key of a pairing, for the sender `senderID` and receiver `receiverID`.
    public init(secret: [UInt8], senderID: [UInt8], receiverID: [UInt8]) {
        key = HKDFSHA256.deriveKey(
            inputKeyMaterial: secret, info: Array("mouse3d v1 probe".utf8) + senderID + receiverID, count: 32)
    }

    /// The probe with its tag, ready to send.
    public func seal(_ probe: LinkProbe) -> [UInt8] {
        let body = probe.authenticatedPart
        return body + Array(HMACSHA256.authenticationCode(for: body, key: key).prefix(LinkProbe.tagBytes))
    }

    /// The probe in `bytes` if its tag verifies under this key.
    public func open(_ bytes: UnsafeRawBufferPointer) -> LinkProbe? {
        guard let probe = LinkProbe.fields(of: bytes) else { return nil }
        let expected = Array(
            HMACSHA256.authenticationCode(
                for: UnsafeRawBufferPointer(rebasing: bytes[0..<LinkProbe.authenticatedBytes]), key: key
            )
            .prefix(LinkProbe.tagBytes))
        // Constant-time comparison.
        var difference: UInt8 = 0
        for i in 0..<LinkProbe.tagBytes { difference |= expected[i] ^ bytes[LinkProbe.authenticatedBytes + i] }
        return difference == 0 ? probe : nil
    }
}
