import Mouse3DCore
import Testing

@Suite("DSU and opentrack encoders")
struct ProtocolEncoderTests {
    func refusal(_ bytes: [UInt8]) -> DSUProtocol.Refusal? {
        if case .failure(let r) = DSUProtocol.decodeRequest(bytes) { return r }
        return nil
    }

    @Test("CRC-32 check value; packets carry a valid CRC, length and header; requests round-trip")
    func packets() throws {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        let v = DSUProtocol.versionResponse(serverID: 0xAABB_CCDD)
        #expect(
            v.count == 22 && Array(v[0..<4]) == Array("DSUS".utf8) && v[4] == 0xE9 && v[5] == 0x03 && v[6] == 6
                && v[7] == 0)
        var zeroed = v
        for i in 8..<12 { zeroed[i] = 0 }
        #expect(CRC32.checksum(zeroed) == UInt32(v[8]) | UInt32(v[9]) << 8 | UInt32(v[10]) << 16 | UInt32(v[11]) << 24)
        for request in [
            DSUProtocol.Request.version, .controllerInformation(slots: [0, 3]), .padData(slot: nil, mac: nil),
            .padData(slot: 0, mac: nil)
        ] {
            let decoded = try DSUProtocol.decodeRequest(DSUProtocol.request(request, clientID: 9)).get()
            #expect(decoded.request == request && decoded.clientID == 9)
        }
        var bad = DSUProtocol.request(.version, clientID: 1)
        bad[12] ^= 1
        #expect(refusal(bad) == .crc)
        #expect(refusal(DSUProtocol.versionResponse(serverID: 1)) == .magic, "a server's packet is not a request")
        #expect(refusal(Array(bad.prefix(19))) == .short)
        var longer = DSUProtocol.request(.version, clientID: 1) + [1, 2, 3]
        #expect((try? DSUProtocol.decodeRequest(longer).get().request) == .version, "bytes past the length are ignored")
        longer[6] = 40
        #expect(refusal(longer) == .length)
    }

    @Test("Pad data: 100 bytes, fields where the protocol puts them; the packet number rewritten with a fresh CRC")
    func padData() {
        var d = DSUProtocol.PadData(
            slot: .connected(0, mac: [1, 2, 3, 4, 5, 6]), packetNumber: 7, timestampMicroseconds: 0x0102_0304_0506_0708,
            accelerometer: SIMD3(0.5, -1, 0.25), gyroscope: SIMD3(10, -20, 30))
        d.buttons2 = 0b0010_0000  // A / cross
        var p = DSUProtocol.padData(d, serverID: 3)
        #expect(
            p.count == 100 && p[20] == 0 && p[21] == 2 && p[22] == 2 && Array(p[24..<30]) == [1, 2, 3, 4, 5, 6]
                && p[31] == 1)
        #expect(
            p[32] == 7 && p[37] == 0b0010_0000 && p[40] == 128 && p[50] == 255,
            "packet number, buttons, stick at rest, analog A")
        #expect(Array(p[68..<76]) == [8, 7, 6, 5, 4, 3, 2, 1])
        func float(_ o: Int) -> Float {
            Float(bitPattern: UInt32(p[o]) | UInt32(p[o + 1]) << 8 | UInt32(p[o + 2]) << 16 | UInt32(p[o + 3]) << 24)
        }
        #expect([76, 80, 84, 88, 92, 96].map(float) == [0.5, -1, 0.25, 10, -20, 30])
        DSUProtocol.setPacketNumber(300, in: &p)
        var zeroed = p
        for i in 8..<12 { zeroed[i] = 0 }
        #expect(
            p[32] == 44 && p[33] == 1
                && CRC32.checksum(zeroed) == UInt32(p[8]) | UInt32(p[9]) << 8 | UInt32(p[10]) << 16 | UInt32(p[11])
                    << 24
        )
    }

    @Test("Axes: flat at rest reads (0, -1, 0) g; far edge up is +pitch, turning right +yaw, right side down +roll")
    func axes() throws {
        let g = standardGravityMetersPerSecondSquared
        func dsu(_ m: DSUAxisMapping, w: SIMD3<Double> = .zero, f: SIMD3<Double>) -> ([Float], [Float]) {
            let r = m.motion(
                MotionSample(
                    timestampNanoseconds: 0, angularVelocityRadiansPerSecond: w, specificForceMetersPerSecondSquared: f)
            )
            return (
                [r.accelerometer.x, r.accelerometer.y, r.accelerometer.z], [r.gyroscope.x, r.gyroscope.y, r.gyroscope.z]
            )
        }
        // The IIO frame: x right, y toward the far edge, z up.
        let iio = DSUAxisMapping.generic
        #expect(dsu(iio, f: SIMD3(0, 0, g)).0 == [0, -1, 0])
        let d = 180 / Double.pi
        #expect(dsu(iio, w: SIMD3(1 / d, 0, 0), f: .zero).1 == [1, 0, 0], "about +x (right): the far edge rises")
        #expect(
            dsu(iio, w: SIMD3(0, 0, -1 / d), f: .zero).1 == [0, 1, 0], "about -z: turning right, clockwise from above")
        #expect(
            dsu(iio, w: SIMD3(0, 1 / d, 0), f: .zero).1 == [0, 0, 1], "about +y (forward): the right side goes down")
        // Gamepads: each driver's axes turned into mouse3d's gamepad frame first, then one table.
        // hid-playstation (DualSense, DS4): x right, y up, z toward the player (SDL's frame for it).
        // hid-nintendo: x toward the triggers, y left, z up.
        let pad = DSUAxisMapping.forSamples(inGamepadFrame: true)
        for (driver, up, farEdgeUp, turnRight, rightDown):
            (String, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) in [
                ("playstation", SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)),
                ("sony", SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)),
                ("nintendo", SIMD3(0, 0, 1), SIMD3(0, -1, 0), SIMD3(0, 0, -1), SIMD3(1, 0, 0))
            ]
        {
            let axes = try #require(GamepadMotionAxes.forDriver(driver))
            func dsu(w: SIMD3<Double> = .zero, f: SIMD3<Double> = .zero) -> ([Float], [Float]) {
                let r = pad.motion(
                    axes.apply(
                        MotionSample(
                            timestampNanoseconds: 0, angularVelocityRadiansPerSecond: w,
                            specificForceMetersPerSecondSquared: f)))
                return (
                    [r.accelerometer.x, r.accelerometer.y, r.accelerometer.z],
                    [r.gyroscope.x, r.gyroscope.y, r.gyroscope.z]
                )
            }
            #expect(dsu(f: up * g).0 == [0, -1, 0], "\(driver): lying flat")
            #expect(dsu(w: farEdgeUp / d).1 == [1, 0, 0], "\(driver): far edge up")
            #expect(dsu(w: turnRight / d).1 == [0, 1, 0], "\(driver): turning right")
            #expect(dsu(w: rightDown / d).1 == [0, 0, 1], "\(driver): right side down")
        }
        #expect(DSUAxisMapping.forSamples(inGamepadFrame: false) == .generic)
        #expect(GamepadMotionAxes.forDriver("hid-generic") == nil && GamepadMotionAxes.forDriver(nil) == nil)
        // The driver decides; only when it cannot be read do the originals' ids stand in for it.
        #expect(GamepadMotionAxes.forDevice(driver: nil, id: "054C:0CE6")?.driver == "playstation")
        #expect(GamepadMotionAxes.forDevice(driver: nil, id: "057e:2007")?.driver == "nintendo")
        #expect(GamepadMotionAxes.forDevice(driver: "nintendo", id: "2dc8:2009")?.driver == "nintendo")
        #expect(GamepadMotionAxes.forDevice(driver: "hid-generic", id: "054c:0ce6") == nil)
        #expect(GamepadMotionAxes.forDevice(driver: nil, id: "2dc8:2009") == nil)
    }

    @Test("MACs: a controller's own address, else a stable non-zero locally administered one")
    func mac() {
        #expect(DSUAxisMapping.mac(for: "evdev 054c:0ce6:a0:b1:c2:d3:e4:f5") == [0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5])
        let a = DSUAxisMapping.mac(for: "iio accel_3d /sys/bus/iio/devices/iio:device0")
        #expect(
            a == DSUAxisMapping.mac(for: "iio accel_3d /sys/bus/iio/devices/iio:device0") && a.contains { $0 != 0 }
                && a[0] & 3 == 2)
        #expect(a != DSUAxisMapping.mac(for: "iio accel_3d /sys/bus/iio/devices/iio:device1"))
    }

    @Test("opentrack: six little-endian doubles; mouse3d's turn left, nose down, tilt right become -yaw, -pitch, -roll")
    func opentrack() {
        let p = OpentrackPose.datagram(x: 1, y: 0, z: 0, yaw: -2, pitch: 0, roll: 0.5)
        #expect(
            p.count == 48 && Array(p[0..<8]) == [0, 0, 0, 0, 0, 0, 0xF0, 0x3F]
                && Array(p[24..<32]) == [0, 0, 0, 0, 0, 0, 0, 0xC0])
        let a = OpentrackPose.angles(rollRadians: .pi / 6, pitchRadians: .pi / 4, yawRadians: .pi / 2)
        #expect(abs(a.yaw + 90) < 1e-9 && abs(a.pitch + 45) < 1e-9 && abs(a.roll + 30) < 1e-9)
    }
}
