/// Names one attitude stream for outputs and messages: a sender's stream on a receiver, or the
/// local fusion in a process that fuses for itself. Made once per stream (not per frame) and
/// compared by identity, so outputs key their per-stream state (a virtual device, a panel) on it
/// cheaply. Immutable.
public final class StreamLabel: Hashable, CustomStringConvertible, Sendable {
    /// Who sends it: the sender's address (`127.0.0.1:5000`), or `local`.
    public let sender: String
    /// The stream's id in hexadecimal (`0` for raw frames, which carry none).
    public let stream: String
    /// How messages name it: `'laptop' (127.0.0.1:5000) stream 2a`.
    public let description: String
    /// The paired sender's name, for a sealed stream.
    public let peer: String?
    /// The start of its jsonl lines, `{"sender":"…","stream":"…","seq":`, made once (see
    /// ``AttitudePrintFormat``).
    public let jsonlPrefix: [UInt8]
    /// The start of its text lines, `'laptop' (127.0.0.1:5000) stream 2a #`, made once.
    public let textPrefix: [UInt8]

    /// A label with these texts.
    public init(sender: String, stream: String, description: String, peer: String? = nil) {
        self.sender = sender
        self.stream = stream
        self.description = description
        self.peer = peer
        jsonlPrefix = AttitudePrintFormat.jsonlPrefix(sender: sender, stream: stream)
        textPrefix = AttitudePrintFormat.textPrefix(description: description)
    }

    /// The label of a process's own fusion.
    public static let local = StreamLabel(sender: "local", stream: "0", description: "local")

    public static func == (a: StreamLabel, b: StreamLabel) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
