/// What a receiver tells the local network about itself in its DNS-SD TXT record
/// (service type `_mouse3d._udp`, the port being its stream port).
///
/// | key | value |
/// |---|---|
/// | `v` | protocol version, `1` |
/// | `name` | the receiver's name (its identity's name) |
/// | `fp` | its key fingerprint, `xxxx-xxxx-xxxx-xxxx` |
/// | `wire` | what it accepts: `sealed`, `plain` or `raw` |
/// | `out` | its outputs, comma-separated: `print`, `pointer`, `joystick`, `spacemouse` |
/// | `pp` | the UDP port `mouse3d pair` waits on there |
///
/// Unknown keys are ignored (later versions may add some); a record without `v=1` is not one this
/// version can talk to.
public struct ReceiverAnnouncement: Sendable, Equatable {
    /// The DNS-SD service type receivers announce.
    public static let serviceType = "_mouse3d._udp"
    /// The protocol version this code speaks.
    public static let version = 1

    /// The receiver's name.
    public var name: String
    /// Its key fingerprint (empty for a receiver that takes unauthenticated frames).
    public var fingerprint: String
    /// `sealed`, `plain` or `raw`.
    public var wire: String
    /// Its outputs.
    public var outputs: [String]
    /// Its pairing port.
    public var pairingPort: UInt16

    /// Creates an announcement.
    public init(name: String, fingerprint: String, wire: String, outputs: [String], pairingPort: UInt16) {
        self.name = name
        self.fingerprint = fingerprint
        self.wire = wire
        self.outputs = outputs
        self.pairingPort = pairingPort
    }

    /// The TXT entries, `key=value`. Each stays under DNS-SD's 255-byte limit (the name is cut to 200 bytes).
    public var txtEntries: [String] {
        [
            "v=\(Self.version)", "name=\(String(decoding: name.utf8.prefix(200), as: UTF8.self))", "fp=\(fingerprint)",
            "wire=\(wire)", "out=\(outputs.joined(separator: ","))", "pp=\(pairingPort)"
        ]
    }

    /// Why a TXT record is not a usable announcement.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case missingVersion
        case unsupportedVersion(String)
        case badPairingPort(String)
        case badFingerprint(String)

        public var description: String {
            switch self {
            case .missingVersion: "no protocol version (v) in its record"
            case .unsupportedVersion(let v):
                "protocol version \(v), this mouse3d speaks \(ReceiverAnnouncement.version)"
            case .badPairingPort(let p): "pairing port '\(p)' is not a port number"
            case .badFingerprint(let f): "fingerprint '\(f)' is not xxxx-xxxx-xxxx-xxxx"
            }
        }
    }

    /// Reads a TXT record (key to value). `instanceName` stands in for a missing `name`.
    public static func parse(_ txt: [String: String], instanceName: String) -> Result<ReceiverAnnouncement, Problem> {
        guard let v = txt["v"] else { return .failure(.missingVersion) }
        guard v == String(version) else { return .failure(.unsupportedVersion(TerminalText.escaped(v))) }
        let fingerprint = (txt["fp"] ?? "").lowercased()
        if !fingerprint.isEmpty && !isFingerprint(fingerprint) {
            return .failure(.badFingerprint(TerminalText.escaped(fingerprint)))
        }
        var pairingPort = UInt16(Configuration.builtIn[.networkPairingPort])  // not announced: the default
        if let p = txt["pp"] {
            guard let parsed = UInt16(p), parsed > 0 else { return .failure(.badPairingPort(TerminalText.escaped(p))) }
            pairingPort = parsed
        }
        let outputs = (txt["out"] ?? "").split(separator: ",").map(String.init)
        let name = TerminalText.escaped(txt["name"].flatMap { $0.isEmpty ? nil : $0 } ?? instanceName)
        return .success(
            ReceiverAnnouncement(
                name: name, fingerprint: fingerprint, wire: txt["wire"] ?? "sealed", outputs: outputs,
                pairingPort: pairingPort))
    }

    /// Whether `text` looks like `xxxx-xxxx-xxxx-xxxx` in lowercase hexadecimal.
    static func isFingerprint(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.count == 4
            && groups.allSatisfy { g in g.count == 4 && g.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
    }
}
