/// Who may use the live view. A server on this machine is reachable from every web page the user
/// opens, so a request is refused unless its `Host` is one the view serves (against DNS
/// rebinding: a foreign name that resolves here) and, for the live stream, unless its `Origin`, if
/// any, is the view's own page (against other sites reading the user's motion). Pure: the server
/// asks, this answers.
public struct ViewAccessPolicy: Sendable, Equatable {
    /// The `Host` values accepted: the address and port served, and `localhost` and `[::1]` with the
    /// port when the view listens on loopback.
    public let hosts: Set<String>

    /// A refusal, counted by reason.
    public enum Refusal: String, Sendable, CaseIterable {
        /// No `Host` header, or one the view does not serve.
        case foreignHost = "foreign-host"
        /// A stream request from another site's page.
        case foreignOrigin = "foreign-origin"
    }

    /// The policy for a view listening on `address` (numeric, as given) and `port`.
    public init(address: String, port: UInt16) {
        var hosts: Set<String> = []
        let bracketed = address.contains(":") ? "[\(address)]" : address
        hosts.insert("\(bracketed):\(port)")
        if Self.isLoopback(address) {
            hosts.formUnion(["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"])
        }
        self.hosts = hosts
    }

    /// Whether `address` is a loopback address (127.0.0.0/8 or ::1).
    public static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address == "localhost" || address.hasPrefix("127.")
    }

    /// Checks a request: its `Host` header, and for the stream its `Origin` header.
    public func check(host: String?, origin: String?, stream: Bool) -> Refusal? {
        guard let host, hosts.contains(host.lowercased()) else { return .foreignHost }
        if stream, let origin, !hosts.contains(where: { origin.lowercased() == "http://" + $0 }) { return .foreignOrigin }
        return nil
    }
}

/// What the live view shows of one stream: its latest attitude and the receiver's figures.
public struct ViewStreamState: Sendable, Equatable {
    /// The stream's label (sender and stream id, or "local").
    public var label: String
    /// Updates seen.
    public var frames: UInt64
    /// The latest sequence number.
    public var sequence: UInt64
    /// The latest attitude, in degrees.
    public var rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double
    /// Time of the latest update, in monotonic nanoseconds.
    public var receivedNanoseconds: UInt64
    /// Sequence numbers skipped (lost on the way, as far as the view can tell) and updates that came
    /// after a later one (reordered).
    public var lost: UInt64 = 0, reordered: UInt64 = 0

    /// A state.
    public init(label: String, frames: UInt64, sequence: UInt64, rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double, receivedNanoseconds: UInt64) {
        self.label = label
        self.frames = frames
        self.sequence = sequence
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.yawDegrees = yawDegrees
        self.receivedNanoseconds = receivedNanoseconds
    }

    /// Takes the next update of this stream: counts a gap in the sequence as lost and an update older
    /// than the latest as reordered; the attitude shown is the latest to arrive.
    public mutating func take(sequence: UInt64, roll: Double, pitch: Double, yaw: Double, nanoseconds: UInt64) {
        frames += 1
        if sequence > self.sequence {
            lost += sequence - self.sequence - 1
        } else {
            reordered += 1
            if lost > 0 { lost -= 1 }  // it was counted lost when the later one came
        }
        self.sequence = max(self.sequence, sequence)
        rollDegrees = roll
        pitchDegrees = pitch
        yawDegrees = yaw
        receivedNanoseconds = nanoseconds
    }

    /// The JSON object the page reads.
    public var json: String {
        "{\"label\":\(ViewJSON.string(label)),\"frames\":\(frames),\"seq\":\(sequence),"
            + "\"roll\":\(rollDegrees),\"pitch\":\(pitchDegrees),\"yaw\":\(yawDegrees),\"t\":\(receivedNanoseconds),"
            + "\"lost\":\(lost),\"reordered\":\(reordered)}"
    }
}

/// The small JSON the view sends, written by hand (numbers round-trip; strings escaped).
public enum ViewJSON {
    /// `text` as a JSON string literal.
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar == "<" || scalar == ">" || scalar == "&" {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// One update message: every stream's state and the refusals so far.
    public static func update(_ streams: [ViewStreamState], refusals: [ViewAccessPolicy.Refusal: Int]) -> String {
        let counts = ViewAccessPolicy.Refusal.allCases.map { "\"\($0.rawValue)\":\(refusals[$0] ?? 0)" }.joined(separator: ",")
        return "{\"streams\":[" + streams.map(\.json).joined(separator: ",") + "],\"refused\":{" + counts + "}}"
    }
}

extension ViewAccessPolicy {
    /// Parses `--view`'s `[ADDR:]PORT` (an IPv6 address in brackets): the address defaults to
    /// 127.0.0.1; port 0 takes any free port. Nil if it is not that form.
    public static func parse(_ text: String) -> (address: String, port: UInt16)? {
        var address = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            address = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            address = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if address == "localhost" { address = "127.0.0.1" }
        }
        guard !address.isEmpty, let port = UInt16(portText) else { return nil }
        return (address, port)
    }
}
