import Mouse3DCore
import Testing

@Suite("Attitude frame and datagram codecs")
struct AttitudeFrameTests {
    @Test("A frame is 12 bytes of little-endian float32 roll, pitch, yaw")
    func layout() {
        let frame = AttitudeFrame(roll: 1, pitch: -2, yaw: 0.5)
        #expect(frame.encoded == [0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0, 0, 0, 0, 0x3F])
    }

    @Test(
        "Frames round-trip bit for bit",
        arguments: [
            AttitudeFrame(roll: 0, pitch: 0, yaw: 0), AttitudeFrame(roll: -0.0, pitch: 1.5, yaw: -3),
            AttitudeFrame(
                roll: AttitudeFrame.rollYawLimit, pitch: -AttitudeFrame.pitchLimit, yaw: -AttitudeFrame.rollYawLimit),
            AttitudeFrame(roll: .leastNonzeroMagnitude, pitch: 1e-30, yaw: 3.1)
        ])
    func roundTrip(frame: AttitudeFrame) throws {
        let decoded = try #require(AttitudeFrame.decode(frame.encoded))
        #expect(decoded.roll.bitPattern == frame.roll.bitPattern)
        #expect(decoded.pitch.bitPattern == frame.pitch.bitPattern)
        #expect(decoded.yaw.bitPattern == frame.yaw.bitPattern)
    }

    @Test("A datagram's last 24 bytes with its stream and sequence decode to the datagram; bad angles to nil")
    func payload() throws {
        let d = AttitudeDatagram(
            streamID: 0xDEAD_BEEF, sequence: 1 << 40 + 7, sentNanoseconds: 123_456_789_012, buttons: [.clutch],
            frame: AttitudeFrame(roll: 0.5, pitch: -1, yaw: 3))
        let bytes = d.encoded
        let decoded = bytes[16...].withUnsafeBytes {
            AttitudeDatagram.decode(payload: $0, streamID: d.streamID, sequence: d.sequence)
        }
        #expect(decoded == d)
        #expect(decoded == (try AttitudeDatagram.decode(bytes).get()))
        var bad = bytes
        bad[28..<32] = Float.nan.bitPattern.littleEndianBytes[...]
        #expect(bad[16...].withUnsafeBytes { AttitudeDatagram.decode(payload: $0, streamID: 1, sequence: 1) } == nil)
        #expect(bytes[17...].withUnsafeBytes { AttitudeDatagram.decode(payload: $0, streamID: 1, sequence: 1) } == nil)
    }

    @Test("Any attitude converts to a valid frame, also at ±π")
    func fromAttitude() {
        for roll in stride(from: -Double.pi, through: Double.pi, by: Double.pi / 4) {
            let a = Attitude(rollRadians: roll, pitchRadians: Double.pi / 2, yawRadians: -Double.pi)
            #expect(AttitudeFrame(a).isValid)
        }
    }

    @Test(
        "NaN, infinite and out-of-range angles are refused",
        arguments: [
            AttitudeFrame(roll: .nan, pitch: 0, yaw: 0), AttitudeFrame(roll: 0, pitch: .infinity, yaw: 0),
            AttitudeFrame(roll: 0, pitch: 0, yaw: -.infinity), AttitudeFrame(roll: 3.2, pitch: 0, yaw: 0),
            AttitudeFrame(roll: 0, pitch: 1.58, yaw: 0), AttitudeFrame(roll: 0, pitch: 0, yaw: -3.15),
            AttitudeFrame(roll: .signalingNaN, pitch: 0, yaw: 0)
        ])
    func invalid(frame: AttitudeFrame) {
        #expect(AttitudeFrame.decode(frame.encoded) == nil)
    }

    @Test("Only exactly 12 bytes decode as a bare frame", arguments: [0, 11, 13, 40])
    func frameSize(count: Int) {
        #expect(AttitudeFrame.decode([UInt8](repeating: 0, count: count)) == nil)
    }

    let datagram = AttitudeDatagram(
        streamID: 0xDEAD_BEEF, sequence: 0x0102_0304_0506_0708, sentNanoseconds: 42, buttons: [.clutch, .primary],
        frame: AttitudeFrame(roll: 0.25, pitch: -0.5, yaw: 1))

    @Test("A datagram is 40 bytes in the documented layout and round-trips")
    func datagramLayout() throws {
        let bytes = datagram.encoded
        #expect(bytes.count == 40)
        #expect(Array(bytes[0..<4]) == [0x4D, 0x33, 1, 0])
        #expect(Array(bytes[4..<8]) == [0xEF, 0xBE, 0xAD, 0xDE])
        #expect(Array(bytes[8..<16]) == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(Array(bytes[16..<24]) == [42, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[24..<28]) == [5, 0, 0, 0])
        #expect(Array(bytes[28..<40]) == datagram.frame.encoded)
        #expect(try AttitudeDatagram.decode(bytes).get() == datagram)
    }

    @Test("Bad datagrams are refused with the reason")
    func datagramErrors() {
        var bytes = datagram.encoded
        #expect(AttitudeDatagram.decode(Array(bytes.dropLast())) == .failure(.wrongSize(39)))
        #expect(AttitudeDatagram.decode(bytes + [0]) == .failure(.wrongSize(41)))
        #expect(AttitudeDatagram.decode([]) == .failure(.wrongSize(0)))
        bytes[0] = 0
        #expect(AttitudeDatagram.decode(bytes) == .failure(.badMagic))
        bytes = datagram.encoded
        bytes[2] = 2
        #expect(AttitudeDatagram.decode(bytes) == .failure(.unsupportedVersion(2)))
        bytes = datagram.encoded
        bytes[3] = 1
        #expect(AttitudeDatagram.decode(bytes) == .failure(.unsupportedKind(1)))
        bytes = datagram.encoded
        bytes[39] = 0x7F
        bytes[38] = 0xC0  // yaw NaN
        #expect(AttitudeDatagram.decode(bytes) == .failure(.invalidFrame))
    }

    @Test("Random bytes never crash the decoder and are refused")
    func randomBytes() {
        var random = SplitMix64(seed: 99)
        for _ in 0..<20_000 {
            let count = Int(random.next() % 64)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if case .success = AttitudeDatagram.decode(bytes) {
                Issue.record("random bytes \(bytes) decoded")
            }
        }
    }
}

extension UInt32 {
    fileprivate var littleEndianBytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) } }
}
