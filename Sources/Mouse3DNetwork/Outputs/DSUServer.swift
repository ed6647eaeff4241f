import Mouse3DCore
import Mouse3DLinux

/// A DSU (cemuhook) server as a pipeline output: emulators subscribe over UDP and get one pad-data
/// packet per sensor sample, with the raw motion in DSU's axes and units. Slot 0 is the motion
/// source; the other slots report not connected.
///
/// DSU has no authentication, and one small request buys 5 s of pad data sent to whatever source
/// address it claims, so everything is bounded: at most ``maximumClients`` subscribers and
/// ``maximumPerAddress`` per IP address (a request past either is refused and counted; the first
/// subscribers keep their stream); answers to version and slot requests are rate-limited; a datagram
/// that is not a well-formed request (magic, version, length, CRC) is counted and never answered.
/// Owned by the event loop's thread.
public final class DSUServer: SourceObserver {
    /// Subscribers served at once.
    public static let maximumClients = 8
    /// Subscribers from one IP address (different ports).
    public static let maximumPerAddress = 2
    /// A subscriber that has not renewed its request for this long is dropped.
    public static let clientTimeoutNanoseconds: UInt64 = 5_000_000_000

    /// Why a datagram was not served; every one is counted.
    public enum Refusal: String, Sendable, CaseIterable {
        case short, badMagic = "bad-magic", badVersion = "bad-version", badLength = "bad-length", badCRC = "bad-crc"
        case unsupported, malformed
        /// A new subscriber while ``maximumClients`` are served.
        case tooManyClients = "too-many-clients"
        /// A new subscriber from an IP address that has ``maximumPerAddress`` already.
        case tooManyFromAddress = "too-many-from-address"
        /// A subscription to a slot or MAC that holds nothing (ignored, as the protocol says).
        case emptySlot = "empty-slot"
        /// Version or slot requests past the answer rate.
        case rateLimited = "rate-limited"

        /// The protocol's reason under the same name (`DSUServerTests` checks every one has one).
        init(_ r: DSUProtocol.Refusal) { self = Refusal(rawValue: r.rawValue) ?? .malformed }
    }

    struct Client {
        var lastRequest: UInt64
        var packetNumber: UInt32 = 0
    }

    /// The socket.
    public let socket: UDPSocket
    /// Where it listens.
    public let localAddress: SocketAddress
    /// The axis table in use.
    public let mapping: DSUAxisMapping
    /// Whether the gyroscope goes out less the fusion's bias estimate.
    public let calibrated: Bool
    /// Slot 0's MAC address.
    public let mac: [UInt8]
    let serverID: UInt32
    var clients: [SocketAddress: Client] = [:]
    var answers = SourceRateLimiter<Int>(ratePerSecond: 200, burst: 50, capacity: 1)
    /// Refusals so far, by reason.
    public private(set) var refusals = RefusalTally<Refusal>()
    /// Pad-data packets sent, and packets that could not be handed to the kernel.
    public private(set) var sent = 0, notDelivered = 0
    var buttons1: UInt8 = 0, buttons2: UInt8 = 0, home: UInt8 = 0
    /// Stick bytes (left x, y, right x, y) and the hat's d-pad bits, from ``gamepadAxis(code:value:)``.
    var sticks: [UInt8] = [128, 128, 128, 128], hatButtons: UInt8 = 0
    var registration: EventLoop.Registration?
    var packet: [UInt8] = []
    /// From a sample's arrival at the pipeline to its datagram handed to the kernel, when measured.
    var latency: LatencyRecorder?

    /// Serves on `address` the device with calibration key `device`, whose samples are in mouse3d's
    /// gamepad frame or (`inGamepadFrame` false) in a device's own axes; `measuresLatency` records
    /// the time from each sample's arrival to each of its datagrams (for `bench dsu`).
    public init(
        listeningOn address: SocketAddress, device: String, inGamepadFrame: Bool = false, calibrated: Bool,
        measuresLatency: Bool = false
    ) throws(SystemCallError) {
        latency = measuresLatency ? LatencyRecorder() : nil
        socket = try UDPSocket(family: address.family)
        try socket.bind(to: address)
        localAddress = try socket.localAddress()
        mapping = DSUAxisMapping.forSamples(inGamepadFrame: inGamepadFrame)
        mac = DSUAxisMapping.mac(for: device)
        self.calibrated = calibrated
        var generator = SystemRandomNumberGenerator()
        serverID = generator.next()
    }

    /// Reads requests on `loop`.
    public func attach(to loop: EventLoop) {
        registration = loop.watch(socket.descriptor) { [unowned self] in try drain(now: MonotonicClock.nanoseconds()) }
    }

    /// How many subscribers are served now.
    public var clientCount: Int { clients.count }

    var slot0: DSUProtocol.Slot { .connected(0, mac: mac) }

    func refuse(_ r: Refusal) { refusals.add(r) }

    /// Requests read per wake-up: a flood of requests cannot hold the event loop (the rest waits in
    /// the socket for the next turn, or is dropped by the kernel when its buffer is full).
    public static let readBudget = 256

    /// Reads at most ``readBudget`` requests; returns how many were read.
    @discardableResult
    func drain(now: UInt64) throws -> Int {
        var buffer = [UInt8](repeating: 0, count: 2048)
        for count in 0..<Self.readBudget {
            let received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
            guard let (length, from) = received else { return count }
            switch DSUProtocol.decodeRequest(buffer[0..<min(length, buffer.count)]) {
            case .failure(let r): refuse(Refusal(r))
            case .success(let (request, _)): try serve(request, from: from, now: now)
            }
        }
        return Self.readBudget
    }

    func serve(_ request: DSUProtocol.Request, from: SocketAddress, now: UInt64) throws {
        switch request {
        case .version:
            guard answers.allow(0, now: now) else { return refuse(.rateLimited) }
            send(DSUProtocol.versionResponse(serverID: serverID), to: from)
        case .controllerInformation(let slots):
            guard answers.allow(0, now: now) else { return refuse(.rateLimited) }
            for s in slots {
                send(DSUProtocol.controllerInformation(s == 0 ? slot0 : .empty(s), serverID: serverID), to: from)
            }
        case .padData(let slot, let requestedMAC):
            if let slot, slot != 0 { return refuse(.emptySlot) }
            if let requestedMAC, requestedMAC != mac, slot == nil { return refuse(.emptySlot) }
            expire(now: now)
            if clients[from] != nil {
                clients[from]!.lastRequest = now
                return
            }
            guard clients.count < Self.maximumClients else { return refuse(.tooManyClients) }
            let host = from.withPort(0)
            guard clients.keys.filter({ $0.withPort(0) == host }).count < Self.maximumPerAddress else {
                return refuse(.tooManyFromAddress)
            }
            clients[from] = Client(lastRequest: now)
        }
    }

    func expire(now: UInt64) {
        if clients.values.contains(where: { now &- $0.lastRequest > Self.clientTimeoutNanoseconds }) {
            clients = clients.filter { now &- $0.value.lastRequest <= Self.clientTimeoutNanoseconds }
        }
    }

    func send(_ bytes: [UInt8], to address: SocketAddress) {
        let outcome = bytes.withUnsafeBytes { try? socket.send($0, to: address) }
        if outcome != .sent { notDelivered += 1 }
    }

    // MARK: Observing the source

    /// Every fused sample goes to the subscribed clients (whatever `--rate` paces the outputs at).
    public func sampleFused(_ sample: MotionSample, gyroBias: SIMD3<Double>, nowNanoseconds now: UInt64) {
        guard !clients.isEmpty else { return }
        expire(now: now)
        let (accelerometer, gyroscope) = mapping.motion(sample, bias: calibrated ? gyroBias : .zero)
        var pad = DSUProtocol.PadData(
            slot: slot0, packetNumber: 0, timestampMicroseconds: UInt64(max(0, sample.timestampNanoseconds)) / 1000,
            accelerometer: accelerometer, gyroscope: gyroscope)
        pad.buttons1 = buttons1 | hatButtons
        pad.buttons2 = buttons2
        pad.home = home
        (pad.leftX, pad.leftY, pad.rightX, pad.rightY) = (sticks[0], sticks[1], sticks[2], sticks[3])
        // One packet built, then per client its packet number and CRC written in.
        packet = DSUProtocol.padData(pad, serverID: serverID)
        for (address, client) in clients {
            DSUProtocol.setPacketNumber(client.packetNumber, in: &packet)
            clients[address]!.packetNumber &+= 1
            send(packet, to: address)
            sent += 1
            if latency != nil {
                latency!.record(nanoseconds: MonotonicClock.nanoseconds() &- now)
            }
        }
    }

    /// Where each evdev button (`<linux/input-event-codes.h>`) goes in DSU's report: the first
    /// bitmask (d-pad, options, sticks, share), the second (face buttons, shoulders), or home.
    enum ButtonSlot { case first(UInt8), second(UInt8), home }
    static let buttonSlots: [Int32: ButtonSlot] = [
        0x222: .first(7), 0x221: .first(6), 0x223: .first(5), 0x220: .first(4),  // d-pad left, down, right, up
        // start (options), thumb R, thumb L, select (share)
        0x13b: .first(3), 0x13e: .first(2), 0x13d: .first(1), 0x13a: .first(0),
        // north (Y), east (B), south (A), west (X)
        0x133: .second(7), 0x131: .second(6), 0x130: .second(5), 0x134: .second(4),
        0x137: .second(3), 0x136: .second(2), 0x139: .second(1), 0x138: .second(0),  // R1, L1, R2, L2
        0x13c: .home  // mode
    ]

    /// Gamepad buttons in DSU's bitmasks.
    public func gamepadButton(code: Int32, pressed: Bool) {
        func set(_ byte: inout UInt8, _ bit: UInt8) { if pressed { byte |= 1 << bit } else { byte &= ~(1 << bit) } }
        switch Self.buttonSlots[code] {
        case .first(let bit)?: set(&buttons1, bit)
        case .second(let bit)?: set(&buttons2, bit)
        case .home?: home = pressed ? 1 : 0
        case nil: break
        }
    }

    /// The evdev button codes this server reports.
    public static var buttonCodes: Set<Int32> { Set(buttonSlots.keys) }

    /// The evdev axes this server reports: the sticks (`ABS_X`, `ABS_Y`, `ABS_RX`, `ABS_RY`, the
    /// kernel's gamepad layout) and the d-pad as a hat (`ABS_HAT0X`, `ABS_HAT0Y`: hid-playstation's).
    public static let axisCodes: Set<Int32> = [0x00, 0x01, 0x03, 0x04, 0x10, 0x11]

    /// Gamepad sticks and hat in DSU's report. Sticks become 0–255 with 128 at rest, y positive
    /// upward (evdev's is downward); the hat sets the d-pad bits, as d-pad buttons do.
    public func gamepadAxis(code: Int32, value: Float) {
        func byte(_ v: Float) -> UInt8 { UInt8(max(0, min(255, (v + 1) * 127.5)).rounded()) }
        switch code {
        case 0x00: sticks[0] = byte(value)
        case 0x01: sticks[1] = byte(-value)
        case 0x03: sticks[2] = byte(value)
        case 0x04: sticks[3] = byte(-value)
        case 0x10:  // left bit 7, right bit 5
            hatButtons = hatButtons & ~0xA0 | (value < -0.5 ? 0x80 : value > 0.5 ? 0x20 : 0)
        case 0x11:  // up bit 4 (evdev -1), down bit 6
            hatButtons = hatButtons & ~0x50 | (value < -0.5 ? 0x10 : value > 0.5 ? 0x40 : 0)
        default: break
        }
    }

    /// One line on what was served and refused.
    public var summary: String {
        return "dsu: \(sent) pad packets sent" + (notDelivered > 0 ? ", \(notDelivered) not delivered" : "")
            + (refusals.listing.map { "; refused " + $0 } ?? "")
            + (latency.map { "; latency arrival→datagram: \($0.summary)" } ?? "")
    }
}
