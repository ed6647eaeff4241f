/// What the phone page sends over its WebSocket after the token: binary frames, little-endian, each
/// one message. The page batches its `devicemotion` events (every 20–50 ms), so a message carries
/// at most ``maximumReadings`` readings, each with the event's own time.
///
/// | kind (1 byte) | layout |
/// |---|---|
/// | 1 readings | count (u16), then per reading: time (f64, ms, the event's `timeStamp`), `rotationRate` alpha, beta, gamma (3 × f32, °/s as the event gives them), `accelerationIncludingGravity` x, y, z (3 × f32, m/s²) |
/// | 2 buttons | state (u8): bit 0 left click, 1 right click, 2 recenter, 3 hold to move |
/// | 3 platform | which convention the browser follows (u8): 0 the specification's, 1 WebKit on iOS and iPadOS |
/// | 4 screen | the screen's orientation angle (u16, degrees: 0, 90, 180 or 270; `screen.orientation.angle`, how far the phone is turned counterclockwise from portrait), said at connection and on every change |
///
/// Anything else (another kind, a wrong length, more readings than allowed, a value that is not
/// finite or beyond any sensor) is refused whole: the decoder never guesses.
public enum PhoneMessage: Sendable, Equatable {
    /// Readings in the order the events fired.
    case readings([PhoneReading])
    /// The page's buttons as they are now.
    case buttons(PhoneButtons)
    /// The browser's conventions, said once after the token.
    case platform(PhonePlatform)
    /// The screen's orientation angle (0, 90, 180, 270 degrees).
    case screen(angle: Int)

    /// The most readings in one message (two seconds at the browsers' 60 Hz; the whole message stays
    /// within a WebSocket frame the server takes, 4 KiB).
    public static let maximumReadings = 120
    /// Bytes of one reading.
    public static let readingBytes = 32
    /// The largest message, in bytes.
    public static let maximumBytes = 3 + maximumReadings * readingBytes

    /// Why a message was refused.
    public enum Problem: String, Error, Sendable, Equatable, CaseIterable {
        case empty = "empty", unknownKind = "unknown-kind", badLength = "bad-length", tooManyReadings =
            "too-many-readings"
        case notFinite = "not-finite", outOfRange = "out-of-range", badTimes = "bad-times"
    }

    /// The latest reading time taken (ms since the page's time origin: about 30 years).
    public static let largestMilliseconds = 1e12
    /// The longest a message's readings may span, in ms (a batch is 25 ms; a page that was held up
    /// sends what it gathered, a few seconds at most).
    public static let longestSpanMilliseconds = 5000.0

    /// Rates beyond this (°/s) or forces beyond this (m/s²) are no phone's: refused.
    static let largestRate: Float = 20_000, largestForce: Float = 2_000

    /// Decodes one message.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<PhoneMessage, Problem> {
        guard let kind = bytes.first else { return .failure(.empty) }
        switch kind {
        case 1:
            guard bytes.count >= 3 else { return .failure(.badLength) }
            let count = Int(bytes[1]) | Int(bytes[2]) << 8
            guard count <= maximumReadings else { return .failure(.tooManyReadings) }
            guard bytes.count == 3 + count * readingBytes else { return .failure(.badLength) }
            var readings: [PhoneReading] = []
            readings.reserveCapacity(count)
            for i in 0..<count {
                let o = 3 + i * readingBytes
                let time = Double(bitPattern: bytes.loadLittleEndianUInt64(at: o))
                var f = [Float](repeating: 0, count: 6)
                for k in 0..<6 { f[k] = Float(bitPattern: bytes.loadLittleEndianUInt32(at: o + 8 + 4 * k)) }
                guard time.isFinite, f.allSatisfy(\.isFinite) else { return .failure(.notFinite) }
                guard time >= 0, time <= largestMilliseconds, f[0..<3].allSatisfy({ abs($0) <= largestRate }),
                    f[3..<6].allSatisfy({ abs($0) <= largestForce })
                else {
                    return .failure(.outOfRange)
                }
                // In the order the events fired, within a few seconds of each other.
                if let first = readings.first,
                    time < readings[readings.count - 1].milliseconds
                        || time - first.milliseconds > longestSpanMilliseconds
                {
                    return .failure(.badTimes)
                }
                readings.append(
                    PhoneReading(
                        milliseconds: time, rotationRate: SIMD3(Double(f[0]), Double(f[1]), Double(f[2])),
                        accelerationIncludingGravity: SIMD3(Double(f[3]), Double(f[4]), Double(f[5]))))
            }
            return .success(.readings(readings))
        case 2:
            guard bytes.count == 2 else { return .failure(.badLength) }
            return .success(.buttons(PhoneButtons(rawValue: bytes[1] & 0x0F)))
        case 3:
            guard bytes.count == 2, let platform = PhonePlatform(rawValue: bytes[1]) else {
                return .failure(.badLength)
            }
            return .success(.platform(platform))
        case 4:
            guard bytes.count == 3 else { return .failure(.badLength) }
            let angle = Int(bytes[1]) | Int(bytes[2]) << 8
            guard angle % 90 == 0 && angle < 360 else { return .failure(.outOfRange) }
            return .success(.screen(angle: angle))
        default:
            return .failure(.unknownKind)
        }
    }

    /// The message's bytes (for tests and tools; the page writes the same in JavaScript).
    public var encoded: [UInt8] {
        switch self {
        case .readings(let readings):
            var out: [UInt8] = [1, UInt8(readings.count & 0xFF), UInt8(readings.count >> 8)]
            for r in readings {
                out.appendLittleEndian(r.milliseconds.bitPattern)
                for v in [
                    r.rotationRate.x, r.rotationRate.y, r.rotationRate.z, r.accelerationIncludingGravity.x,
                    r.accelerationIncludingGravity.y, r.accelerationIncludingGravity.z
                ] {
                    out.appendLittleEndian(Float(v).bitPattern)
                }
            }
            return out
        case .buttons(let b): return [2, b.rawValue]
        case .platform(let p): return [3, p.rawValue]
        case .screen(let angle): return [4, UInt8(angle & 0xFF), UInt8(angle >> 8)]
        }
    }
}
