/// The DSU ("cemuhook") protocol, version 1001, as emulators (Dolphin, Cemu, Citra, Yuzu and Ryujinx
/// forks, RPCS3) read motion from a server over UDP: written from the protocol's public description.
///
/// Every packet: a 16-byte header (magic `DSUS` from a server, `DSUC` from a client; version 1001;
/// the length after the header; a CRC-32 of the whole packet with its own field zeroed; the
/// sender's id), then a 32-bit message type, then the message. All numbers little-endian.
public enum DSUProtocol {
    /// The protocol version spoken.
    public static let version: UInt16 = 1001
    /// Header bytes before the message type.
    public static let headerBytes = 16
    /// The conventional port.
    public static let defaultPort: UInt16 = 26760
    /// Slots a server has (only slot 0 carries a device here).
    public static let slots = 4

    /// Message types.
    public enum Message: UInt32, Sendable {
        /// The protocol version the server speaks.
        case version = 0x100000
        /// Which controllers are in which slots.
        case controllerInformation = 0x100001
        /// A subscription to pad data (request), or one report of pad data (response).
        case padData = 0x100002
    }

    // MARK: Requests

    /// A client's request, decoded and checked.
    public enum Request: Sendable, Equatable {
        /// What version the server speaks.
        case version
        /// Information about these slots (at most four, each below four).
        case controllerInformation(slots: [UInt8])
        /// Pad data: for every slot (`slot` and `mac` nil), the slot given, or the device with that MAC.
        case padData(slot: UInt8?, mac: [UInt8]?)
    }

    /// Why a datagram was not taken as a request; counted, never answered.
    public enum Refusal: String, Error, Sendable, CaseIterable {
        /// Shorter than a header and a message type.
        case short = "short"
        /// Not `DSUC`.
        case magic = "bad-magic"
        /// Not version 1001.
        case version = "bad-version"
        /// The length field says more than arrived, or less than the message needs.
        case length = "bad-length"
        /// The CRC does not match.
        case crc = "bad-crc"
        /// A message type this server does not serve (rumble, or unknown).
        case unsupported = "unsupported"
        /// A controller-information request asking for more than four slots or a slot past three.
        case malformed = "malformed"
    }

    /// Decodes a client's datagram. The length field may be shorter than the datagram (the rest is
    /// ignored, as the protocol says), never longer.
    public static func decodeRequest(_ bytes: some Collection<UInt8>) -> Result<
        (request: Request, clientID: UInt32), Refusal
    > {
        let b = Array(bytes.prefix(1024))
        guard b.count >= headerBytes + 4 else { return .failure(.short) }
        guard b[0] == 0x44, b[1] == 0x53, b[2] == 0x55, b[3] == 0x43 else { return .failure(.magic) }
        guard le16(b, 4) == version else { return .failure(.version) }
        let length = Int(le16(b, 6))
        guard length >= 4, headerBytes + length <= b.count else { return .failure(.length) }
        var packet = Array(b[0..<headerBytes + length])
        let crc = le32(packet, 8)
        packet[8] = 0
        packet[9] = 0
        packet[10] = 0
        packet[11] = 0
        guard CRC32.checksum(packet) == crc else { return .failure(.crc) }
        let clientID = le32(packet, 12)
        let body = Array(packet[(headerBytes + 4)...])
        switch Message(rawValue: le32(packet, headerBytes)) {
        case .version?:
            return .success((.version, clientID))
        case .controllerInformation?:
            guard body.count >= 4 else { return .failure(.length) }
            let count = Int(Int32(bitPattern: le32(body, 0)))
            guard count >= 0, count <= slots, body.count >= 4 + count else { return .failure(.malformed) }
            let requested = Array(body[4..<4 + count])
            guard requested.allSatisfy({ Int($0) < slots }) else { return .failure(.malformed) }
            return .success((.controllerInformation(slots: requested), clientID))
        case .padData?:
            guard body.count >= 8 else { return .failure(.length) }
            let flags = body[0]
            return .success(
                (
                    .padData(slot: flags & 1 != 0 ? body[1] : nil, mac: flags & 2 != 0 ? Array(body[2..<8]) : nil),
                    clientID
                ))
        case nil:
            return .failure(.unsupported)
        }
    }

    // MARK: Responses

    /// What a slot holds, the 11 bytes every controller response starts with.
    public struct Slot: Sendable, Equatable {
        /// The slot number.
        public var slot: UInt8
        /// 0 not connected, 2 connected.
        public var state: UInt8
        /// 0 not applicable, 1 no or partial gyro, 2 full gyro.
        public var model: UInt8
        /// 0 not applicable, 1 USB, 2 Bluetooth.
        public var connection: UInt8
        /// Six bytes, zero when not applicable.
        public var mac: [UInt8]
        /// 0 not applicable, 1–5 dying to full, 0xEE charging, 0xEF charged.
        public var battery: UInt8

        /// A connected, full-gyro device with `mac` in `slot`.
        public static func connected(_ slot: UInt8, mac: [UInt8], connection: UInt8 = 0) -> Slot {
            Slot(slot: slot, state: 2, model: 2, connection: connection, mac: mac, battery: 0)
        }

        /// An empty slot.
        public static func empty(_ slot: UInt8) -> Slot {
            Slot(slot: slot, state: 0, model: 0, connection: 0, mac: [0, 0, 0, 0, 0, 0], battery: 0)
        }

        var bytes: [UInt8] { [slot, state, model, connection] + mac.prefix(6) + [battery] }
    }

    /// One report of pad data: the motion in DSU's axes and units, and the gamepad's inputs.
    public struct PadData: Sendable, Equatable {
        /// The slot.
        public var slot: Slot
        /// This client's packet counter.
        public var packetNumber: UInt32
        /// D-pad left, down, right, up, options, R3, L3, share (bit 7 to 0).
        public var buttons1: UInt8 = 0
        /// Y (triangle), B (circle), A (cross), X (square), R1, L1, R2, L2 (bit 7 to 0).
        public var buttons2: UInt8 = 0
        /// The home (PS) and touch-pad buttons, 0 or 1.
        public var home: UInt8 = 0, touch: UInt8 = 0
        /// Sticks, 0–255 with 128 at rest; y positive upward.
        public var leftX: UInt8 = 128, leftY: UInt8 = 128, rightX: UInt8 = 128, rightY: UInt8 = 128
        /// The sample's time on its own clock, in microseconds.
        public var timestampMicroseconds: UInt64
        /// Accelerometer X, Y, Z, in g.
        public var accelerometer: SIMD3<Float>
        /// Gyroscope pitch, yaw, roll, in °/s.
        public var gyroscope: SIMD3<Float>

        /// A report.
        public init(
            slot: Slot, packetNumber: UInt32, timestampMicroseconds: UInt64, accelerometer: SIMD3<Float>,
            gyroscope: SIMD3<Float>
        ) {
            self.slot = slot
            self.packetNumber = packetNumber
            self.timestampMicroseconds = timestampMicroseconds
            self.accelerometer = accelerometer
            self.gyroscope = gyroscope
        }

        /// Analog values of the digital buttons: 255 when held (the order of the protocol's
        /// analog block: d-pad left, down, right, up, then Y, B, A, X, R1, L1, R2, L2).
        var analog: [UInt8] {
            let dpad = [7, 6, 5, 4].map { buttons1 & (1 << $0) != 0 ? UInt8(255) : 0 }
            let face = [7, 6, 5, 4, 3, 2, 1, 0].map { buttons2 & (1 << $0) != 0 ? UInt8(255) : 0 }
            return dpad + face
        }
    }

    /// The packet answering a version request.
    public static func versionResponse(serverID: UInt32) -> [UInt8] {
        packet(.version, senderID: serverID, body: le16Bytes(version))
    }

    /// The packet answering a controller-information request for `slot`.
    public static func controllerInformation(_ slot: Slot, serverID: UInt32) -> [UInt8] {
        packet(.controllerInformation, senderID: serverID, body: slot.bytes + [0])
    }

    /// One pad-data packet (100 bytes).
    public static func padData(_ d: PadData, serverID: UInt32) -> [UInt8] {
        var body = d.slot.bytes
        body.append(d.slot.state == 2 ? 1 : 0)
        body += le32Bytes(d.packetNumber)
        body += [d.buttons1, d.buttons2, d.home, d.touch, d.leftX, d.leftY, d.rightX, d.rightY]
        body += d.analog
        body += [UInt8](repeating: 0, count: 12)  // two touches, inactive
        for shift in stride(from: 0, to: 64, by: 8) {
            body.append(UInt8(truncatingIfNeeded: d.timestampMicroseconds >> UInt64(shift)))
        }
        for v in [d.accelerometer.x, d.accelerometer.y, d.accelerometer.z, d.gyroscope.x, d.gyroscope.y, d.gyroscope.z]
        {
            body += le32Bytes(v.bitPattern)
        }
        return packet(.padData, senderID: serverID, body: body)
    }

    /// Writes `number` into a pad-data packet made by ``padData(_:serverID:)`` and its CRC anew
    /// (so one packet is built per sample and only this changes per client).
    public static func setPacketNumber(_ number: UInt32, in packet: inout [UInt8]) {
        let offset = headerBytes + 4 + 12
        for (i, b) in le32Bytes(number).enumerated() { packet[offset + i] = b }
        writeCRC(&packet)
    }

    /// A client's request packet (`DSUC`), as emulators send it: for tools and benchmarks.
    public static func request(_ request: Request, clientID: UInt32) -> [UInt8] {
        let (type, body): (Message, [UInt8]) =
            switch request {
            case .version: (.version, [])
            case .controllerInformation(let slots): (.controllerInformation, le32Bytes(UInt32(slots.count)) + slots)
            case .padData(let slot, let mac):
                (.padData, [(slot == nil ? 0 : 1) | (mac == nil ? 0 : 2), slot ?? 0] + (mac ?? [0, 0, 0, 0, 0, 0]))
            }
        return packet(type, magic: "DSUC", senderID: clientID, body: body)
    }

    /// A packet: header (`DSUS` from a server, `DSUC` from a client), type, body, with its CRC.
    static func packet(_ type: Message, magic: String = "DSUS", senderID: UInt32, body: [UInt8]) -> [UInt8] {
        var p: [UInt8] =
            Array(magic.utf8) + le16Bytes(version) + le16Bytes(UInt16(4 + body.count)) + [0, 0, 0, 0]
            + le32Bytes(senderID)
        p += le32Bytes(type.rawValue)
        p += body
        writeCRC(&p)
        return p
    }

    /// Writes the CRC-32 of `p` (computed with its CRC field zeroed) into that field.
    static func writeCRC(_ p: inout [UInt8]) {
        for i in 8..<12 { p[i] = 0 }
        for (i, b) in le32Bytes(CRC32.checksum(p)).enumerated() { p[8 + i] = b }
    }

    static func le16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func le32(_ b: [UInt8], _ o: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(b[o + $1]) << (8 * UInt32($1)) }
    }
    static func le16Bytes(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32Bytes(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
}
