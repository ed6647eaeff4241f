import Mouse3DCore
import Testing

@Suite("Virtual gamepad")
struct VirtualGamepadTests {
    typealias C = Xbox360Layout.Code
    typealias Event = VirtualGamepad.Event

    func key(_ code: UInt16, _ value: Int32) -> Event { Event(type: C.evKey, code: code, value: value) }
    func abs(_ code: UInt16, _ value: Int32) -> Event { Event(type: C.evAbs, code: code, value: value) }

    @Test("The layout is xpad's for 045e:028e: 11 keys and 8 axes in code order (SDL numbers them so)")
    func layout() {
        #expect(Xbox360Layout.keys == Xbox360Layout.keys.sorted() && Xbox360Layout.keys.count == 11)
        #expect(Xbox360Layout.axes.map(\.code) == [0, 1, 2, 3, 4, 5, 0x10, 0x11])
        #expect(!Xbox360Layout.keys.contains(C.btnTL2) && !Xbox360Layout.keys.contains(C.btnDpadUp))
        #expect(Xbox360Layout.stickValue(-1) == -32768 && Xbox360Layout.stickValue(1) == 32767)
        #expect(Xbox360Layout.stickValue(0) == 0 && Xbox360Layout.stickValue(.nan) == 0)
        #expect(Xbox360Layout.stickValue(2) == 32767 && Xbox360Layout.triggerValue(1.5) == 255)
    }

    @Test("Every face, shoulder, menu and stick key passes with its code, once per change; others are dropped")
    func keys() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        for code in Xbox360Layout.keys {
            do {
                let got = pad.key(code, pressed: true)
                #expect(got == [key(code, 1)])
            }
            do {
                let got = pad.key(code, pressed: true)
                #expect(got == [], "a repeat is no change")
            }
            do {
                let got = pad.key(code, pressed: false)
                #expect(got == [key(code, 0)])
            }
        }
        do {
            let got = pad.key(0x135, pressed: true)
            #expect(got == [], "BTN_Z (a Switch pad's capture button) has no place")
        }
        do {
            let got = pad.key(0x14a, pressed: true)
            #expect(got == [], "BTN_TOUCH")
        }
    }

    @Test(
        "Analog triggers keep all 256 levels (ABS_Z, ABS_RZ over 0...255 normalised and back); once one was seen the digital BTN_TL2 beside it is ignored; a pad with digital triggers only pulls them fully"
    )
    func triggers() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        do {
            let got = pad.axis(C.absZ, normalized: -1)  // the starting value, at rest
            #expect(got == [] && pad.analogTriggers)
        }
        for level in 1...255 {
            let n = (Double(level) - 127.5) / 127.5  // AbsoluteAxisInfo's normalisation of 0...255
            do {
                let got = pad.axis(C.absZ, normalized: n)
                #expect(got == [abs(C.absZ, Int32(level))])
            }
        }
        do {
            let got = pad.axis(C.absRZ, normalized: -1)
            #expect(got == [], "0 is where it rests")
        }
        do {
            let got = pad.key(C.btnTL2, pressed: true)
            #expect(got == [])
        }
        var digital = VirtualGamepad(mapping: GyroStickMapping())
        do {
            let got = digital.key(C.btnTR2, pressed: true)
            #expect(got == [abs(C.absRZ, 255)])
        }
        do {
            let got = digital.key(C.btnTR2, pressed: false)
            #expect(got == [abs(C.absRZ, 0)])
        }
    }

    @Test("D-pad keys (a Joy-Con's) and a d-pad hat (a DualSense's) both give the hat: up and left negative")
    func dpad() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        do {
            let got = pad.key(C.btnDpadUp, pressed: true)
            #expect(got == [abs(C.absHat0Y, -1)])
        }
        do {
            let got = pad.key(C.btnDpadRight, pressed: true)
            #expect(got == [abs(C.absHat0X, 1)])
        }
        do {
            let got = pad.key(C.btnDpadUp, pressed: false)
            #expect(got == [abs(C.absHat0Y, 0)])
        }
        do {
            let got = pad.key(C.btnDpadLeft, pressed: true)
            #expect(got == [abs(C.absHat0X, 0)], "left and right at once cancel")
        }
        var hat = VirtualGamepad(mapping: GyroStickMapping())
        do {
            let got = hat.axis(C.absHat0X, normalized: -1)
            #expect(got == [abs(C.absHat0X, -1)])
        }
        do {
            let got = hat.axis(C.absHat0X, normalized: 0)
            #expect(got == [abs(C.absHat0X, 0)])
        }
    }

    @Test("Sticks pass through within a count of a 0...255 pad's resolution (the gyroscope at rest); both sticks")
    func sticks() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        for raw in 0...255 {
            let n = (Double(raw) - 127.5) / 127.5
            let events = pad.axis(C.absX, normalized: n)
            let value = pad.value(ofAxis: C.absX)
            let back = (Double(value) / (value < 0 ? 32768 : 32767)) * 127.5 + 127.5
            #expect(Swift.abs(back - Double(raw)) < 0.01, "raw \(raw) became \(value) (\(events))")
        }
        do {
            let got = pad.axis(C.absRY, normalized: -0.5)
            #expect(got == [abs(C.absRY, -16384)])
        }
    }

    @Test(
        "The gyroscope drives its stick (the right by default, the left when set) added to the real stick; the other stick is untouched; with the clutch off it is centred; withheld keys (the clutch) are not passed on"
    )
    func gyroStick() {
        for stick in GyroStickMapping.Stick.allCases {
            var m = GyroStickMapping()
            m.stick = stick
            m.innerDeadZone = 0.1
            var pad = VirtualGamepad(mapping: m, withheld: [C.btnTL])
            let (x, other) = stick == .right ? (C.absRX, C.absX) : (C.absX, C.absRX)
            // Turning right at 36 °/s, 250 Hz: a tenth of the game's full 360 °/s.
            func turn(_ steps: Range<Int>, enabled: Bool) {
                for i in steps {
                    _ = pad.attitude(
                        rollRadians: 0, pitchRadians: 0, yawRadians: -Double(i) * 0.004 * 36 * .pi / 180,
                        motionTimeNanoseconds: UInt64(i) * 4_000_000, arrivedNanoseconds: UInt64(i) * 4_000_000,
                        enabled: enabled)
                }
            }
            turn(0..<10, enabled: true)
            #expect(pad.value(ofAxis: x) == Xbox360Layout.stickValue(0.1 + 0.9 * 0.1), "\(stick)")
            #expect(pad.value(ofAxis: other) == 0)
            do {
                let got = pad.key(C.btnTL, pressed: true)
                #expect(got == [], "the clutch is withheld")
            }
            turn(10..<11, enabled: false)
            #expect(pad.value(ofAxis: x) == 0, "clutch off: centred")
            turn(11..<12, enabled: true)
            #expect(pad.value(ofAxis: x) == Xbox360Layout.stickValue(0.1 + 0.9 * 0.1), "on again at once")
        }
    }

    @Test("A stream's clicks pull the triggers fully (primary the right, secondary the left) over the real pull")
    func clicks() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        _ = pad.axis(C.absZ, normalized: 0)  // the left trigger half pulled: 128
        do {
            let got = pad.clicks(primary: true, secondary: false)
            #expect(got == [abs(C.absRZ, 255)])
        }
        do {
            let got = pad.clicks(primary: true, secondary: true)
            #expect(got == [abs(C.absZ, 255)])
        }
        do {
            let got = pad.clicks(primary: false, secondary: false)
            #expect(got == [abs(C.absRZ, 0), abs(C.absZ, 128)], "back to the real pull")
        }
    }

    @Test(
        "The gyroscope's part goes stale 50 ms after the last attitude (four usual intervals for a slow stream): the stick centres, the real stick stays"
    )
    func stale() {
        for period: UInt64 in [4_000_000, 50_000_000] {  // 250 Hz; a sender paced at 20 Hz
            var pad = VirtualGamepad(mapping: GyroStickMapping())
            _ = pad.axis(C.absRY, normalized: 0.25)
            var t: UInt64 = 0
            for i in 0..<40 {
                t = UInt64(i) * period
                _ = pad.attitude(
                    rollRadians: 0, pitchRadians: 0, yawRadians: -Double(t) * 1e-9 * 36 * .pi / 180,
                    motionTimeNanoseconds: t, arrivedNanoseconds: t, enabled: true)
            }
            let expected = t + max(50_000_000, 4 * period)
            #expect(
                pad.staleAt.map { Swift.abs(Int64($0) - Int64(expected)) < 1000 } == true,
                "\(period): \(String(describing: pad.staleAt))")
            do {
                let early = pad.expire(now: expected - 1_000_000)
                #expect(early == [])
            }
            do {
                let got = pad.expire(now: expected)
                #expect(got == [abs(C.absRX, 0)], "\(got)")
            }
            #expect(pad.value(ofAxis: C.absRY) == 8192 && pad.staleAt == nil)
        }
    }

    @Test("While the recenter button is held the gyro stick rests, and the jump of the zero is no turn")
    func recentre() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        func feed(_ i: Int, yaw: Double, recentring: Bool = false) {
            _ = pad.attitude(
                rollRadians: 0, pitchRadians: 0, yawRadians: yaw, motionTimeNanoseconds: UInt64(i) * 4_000_000,
                arrivedNanoseconds: UInt64(i) * 4_000_000, enabled: true, recentring: recentring)
        }
        for i in 0..<10 { feed(i, yaw: -Double(i) * 0.004 * 36 * .pi / 180) }
        #expect(pad.value(ofAxis: C.absRX) == Xbox360Layout.stickValue(0.1))
        feed(10, yaw: 0.2, recentring: true)  // the zero moved: the attitude jumps 13 degrees
        #expect(pad.value(ofAxis: C.absRX) == 0)
        feed(11, yaw: 0)
        feed(12, yaw: -0.004 * 36 * .pi / 180)
        #expect(pad.value(ofAxis: C.absRX) == Xbox360Layout.stickValue(0.1), "the turn goes on from the new zero")
    }

    @Test("A trigger mouse3d acts on (the clutch on L2) stays released on an analog pad too")
    func withheldTrigger() {
        var pad = VirtualGamepad(mapping: GyroStickMapping(), withheld: [C.btnTL2])
        let pulled = pad.axis(C.absZ, normalized: 1) + pad.key(C.btnTL2, pressed: true)
        #expect(pulled == [] && pad.value(ofAxis: C.absZ) == 0)
        let right = pad.axis(C.absRZ, normalized: 1)
        #expect(right == [abs(C.absRZ, 255)])
    }

    @Test("At rest everything held is released and every axis centred, once; then nothing more")
    func rest() {
        var pad = VirtualGamepad(mapping: GyroStickMapping())
        _ = pad.key(C.btnA, pressed: true)
        _ = pad.key(C.btnStart, pressed: true)
        _ = pad.axis(C.absY, normalized: 0.8)
        _ = pad.axis(C.absZ, normalized: 1)
        _ = pad.axis(C.absHat0X, normalized: 1)
        let events = pad.rest()
        #expect(
            events == [key(C.btnA, 0), key(C.btnStart, 0), abs(C.absY, 0), abs(C.absZ, 0), abs(C.absHat0X, 0)],
            "\(events)")
        do {
            let got = pad.rest()
            #expect(got == [])
        }
    }
}
