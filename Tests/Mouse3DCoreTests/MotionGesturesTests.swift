import Mouse3DCore
import Testing

@Suite("Clutch and recenter")
struct MotionGesturesTests {
    @Test("Without a clutch, motion is always enabled")
    func noClutch() {
        var g = MotionGestures(clutchMode: nil)
        #expect(g.motionEnabled)
        g.clutch(pressed: true)
        g.clutch(pressed: false)
        #expect(g.motionEnabled)
    }

    @Test("Hold: enabled exactly while held")
    func hold() {
        var g = MotionGestures(clutchMode: .hold)
        #expect(!g.motionEnabled)
        g.clutch(pressed: true)
        #expect(g.motionEnabled)
        g.clutch(pressed: true)  // repeat: no change
        #expect(g.motionEnabled)
        g.clutch(pressed: false)
        #expect(!g.motionEnabled)
    }

    @Test("Toggle: each press switches; releases do nothing")
    func toggle() {
        var g = MotionGestures(clutchMode: .toggle)
        var states: [Bool] = []
        for pressed in [true, false, true, false, true, true, false] {
            g.clutch(pressed: pressed)
            states.append(g.motionEnabled)
        }
        #expect(states == [true, true, false, false, true, true, true])
    }

    @Test("Hold-off: enabled except while held (a ratchet)")
    func holdOff() {
        var g = MotionGestures(clutchMode: .holdOff)
        var states = [g.motionEnabled]
        for pressed in [true, true, false, false, true, false] {
            g.clutch(pressed: pressed)
            states.append(g.motionEnabled)
        }
        #expect(states == [true, false, false, true, true, false, true])
        #expect(MotionGestures.ClutchMode(rawValue: "hold-off") == .holdOff)
    }

    @Test("Recentering makes the current attitude zero and keeps later motion relative to it")
    func recenter() {
        var g = MotionGestures(clutchMode: nil)
        let a = Attitude(rollRadians: 0.3, pitchRadians: -0.2, yawRadians: 1.0)
        g.recenter(at: a)
        let zero = g.relative(a)
        #expect(abs(zero.rollRadians) < 1e-12 && abs(zero.pitchRadians) < 1e-12 && abs(zero.yawRadians) < 1e-12)
        // A further 20° turn about the device's own z axis reads as yaw 20° from the new zero.
        let turned = Attitude(quaternion: a.quaternion * Quaternion(axis: SIMD3(0, 0, 1), angleRadians: 20 * degree))
        #expect(abs(g.relative(turned).yawRadians - 20 * degree) < 1e-9)
    }
}
