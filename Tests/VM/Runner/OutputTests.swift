import CLinux
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

enum OutputTests {
    /// Starts `mouse3d receive --uinput MODE` on an ephemeral loopback port; returns it and a streamer to it.
    static func start(_ mode: String, extra: [String] = []) throws -> (ChildProcess, AttitudeStreamer) {
        let receiver = try ChildProcess(
            executable: mouse3d,
            arguments: ["receive", "--insecure", "--listen", "127.0.0.1:0", "--uinput", mode] + extra)
        let port = try loopbackPort(announcedBy: receiver)
        let target = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        return (receiver, try AttitudeStreamer(peers: [target], format: .datagram))
    }

    /// The event node of the input device whose name starts with `prefix`, once it exists.
    static func node(named prefix: String) throws -> String {
        // Generous: a bound on a failure, not a speed target (start-ups beside other work take long).
        try waitFor("a virtual device named '\(prefix)…'", seconds: 60) { inputEventNode(named: prefix) }
    }

    /// Every event readable from `device` within `seconds` (until it goes away).
    /// Times a test's own reader of a virtual device fell behind and the kernel dropped its events
    /// (SYN_DROPPED; relative motion in the gap is gone: libevdev's resync restores only state).
    nonisolated(unsafe) static var readerDrops = 0

    /// With `until`: returns as soon as what was read satisfies it (`seconds` then only bounds a
    /// failure: a test waits for what it counts, not for a window to pass).
    static func events(
        _ device: EvdevDevice, seconds: Double, until done: ([EvdevDevice.Event]) -> Bool = { _ in false }
    ) -> [EvdevDevice.Event] {
        var got: [EvdevDevice.Event] = []
        let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while MonotonicClock.nanoseconds() < end && !done(got) {
            switch try? device.next() {
            case .resynchronised(let e)? where e.type == Int32(EV_SYN) && e.code == Int32(SYN_DROPPED):
                readerDrops += 1
            case .event(let e)?, .resynchronised(let e)?: got.append(e)
            case .wouldBlock?: _ = try? EventLoop.waitUntilReadable([device.descriptor], timeoutNanoseconds: 20_000_000)
            case nil: return got  // the device is gone
            }
        }
        return got
    }

    static func sum(_ events: [EvdevDevice.Event], code: Int32) -> Int32 {
        events.filter { $0.type == Int32(EV_REL) && $0.code == code }.reduce(0) { $0 + $1.value }
    }

    /// `--uinput pointer`: a right turn of 20° moves +400 counts at 20 per degree; nothing moves with
    /// the clutch released; the primary click is BTN_LEFT; when the stream stops the button is
    /// released and the device removed.
    static func pointer() throws {
        let (receiver, streamer) = try start("pointer")
        defer {
            try? receiver.send(signal: SIGTERM)
            _ = try? receiver.wait()
        }
        func send(yawDegrees: Double, buttons: ButtonState = [.clutch]) throws {
            try streamer.send(
                AttitudeFrame(roll: 0, pitch: 0, yaw: Float(yawDegrees * .pi / 180)), buttons: buttons,
                now: MonotonicClock.nanoseconds())
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        try send(yawDegrees: 0)
        let path = try node(named: "mouse3d pointer")
        let device = try EvdevDevice(path: path)
        try expect(
            device.hasEvent(type: Int32(EV_REL), code: Int32(REL_X))
                && device.hasEvent(type: Int32(EV_KEY), code: Int32(BTN_LEFT)),
            "pointer capabilities")
        for i in 1...40 { try send(yawDegrees: -0.5 * Double(i)) }  // 20° to the right
        for i in 1...20 { try send(yawDegrees: -20 - Double(i), buttons: []) }  // clutch released: nothing
        try send(yawDegrees: -40, buttons: [.clutch, .primary])
        // Read until the click: the receiver handles frames in order, so all the turn's motion came
        // before it, and so would any of the 20° turned with the clutch released (400 counts more).
        func leftDown(_ e: EvdevDevice.Event) -> Bool {
            e.type == Int32(EV_KEY) && e.code == Int32(BTN_LEFT) && e.value == 1
        }
        let moved = events(device, seconds: 60, until: { $0.contains(where: leftDown) })
        try expect(moved.contains(where: leftDown), "BTN_LEFT down")
        let dx = sum(moved, code: Int32(REL_X))
        try expect(abs(dx - 400) <= 1, "REL_X total \(dx), expected 400 (800 if the clutch let motion through)")
        try expect(sum(moved, code: Int32(REL_Y)) == 0, "no vertical motion")
        // Silence: after 500 ms the receiver releases the button and removes the device (read until
        // it is gone).
        let released = events(device, seconds: 60)
        try expect(
            released.contains { $0.type == Int32(EV_KEY) && $0.code == Int32(BTN_LEFT) && $0.value == 0 },
            "BTN_LEFT released on stream loss: \(released)")
        try expect(!FileSystem.exists(path), "the device was removed on stream loss")
    }

    /// `--uinput joystick`: the pose lands on ABS_RX/RY/RZ; SIGTERM centres every axis and releases
    /// the trigger before the device goes.
    static func joystick() throws {
        let (receiver, streamer) = try start("joystick")
        defer { _ = try? receiver.wait() }
        let frame = AttitudeFrame(roll: 0.5, pitch: -0.25, yaw: 2.0)
        try streamer.send(frame, buttons: [.clutch], now: 0)
        let path = try node(named: "mouse3d joystick")
        let device = try EvdevDevice(path: path)
        for code in [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ] {
            let info = device.absoluteAxis(Int32(code))
            try expect(
                info?.minimum == -32767 && info?.maximum == 32767, "axis \(code) range \(String(describing: info))")
        }
        for _ in 0..<5 {
            try streamer.send(frame, buttons: [.clutch, .primary], now: 0)
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        func value(_ code: Int32) -> Int? { device.absoluteAxis(code)?.value }
        // The trigger's press too: the pose is there from the first frame, and a SIGTERM sent
        // before the receiver read the pressing frames (a loaded VM, two seat runs beside it)
        // left nothing to release, and the test failed for a press that never came.
        _ = events(device, seconds: 60) { _ in
            value(Int32(ABS_RX)) == Int(JoystickPose.value(radians: 0.5))
                && value(Int32(ABS_RY)) == Int(JoystickPose.value(radians: -0.25))
                && value(Int32(ABS_RZ)) == Int(JoystickPose.value(radians: 2.0))
                && device.currentValue(type: Int32(EV_KEY), code: Int32(BTN_TRIGGER)) == 1
        }
        try expect(
            device.currentValue(type: Int32(EV_KEY), code: Int32(BTN_TRIGGER)) == 1,
            "the trigger (primary) pressed before SIGTERM")
        try expect(
            device.absoluteAxis(Int32(ABS_RX))?.value == Int(JoystickPose.value(radians: 0.5)),
            "ABS_RX \(String(describing: device.absoluteAxis(Int32(ABS_RX))))")
        try expect(device.absoluteAxis(Int32(ABS_RY))?.value == Int(JoystickPose.value(radians: -0.25)), "ABS_RY")
        try expect(device.absoluteAxis(Int32(ABS_RZ))?.value == Int(JoystickPose.value(radians: 2.0)), "ABS_RZ")
        try receiver.send(signal: SIGTERM)
        let last = events(device, seconds: 60)  // until the device is gone
        let final = Dictionary(
            last.filter { $0.type == Int32(EV_ABS) || $0.type == Int32(EV_KEY) }.map {
                ("\($0.type)/\($0.code)", $0.value)
            }, uniquingKeysWith: { $1 })
        try expect(
            final["\(EV_ABS)/\(ABS_RZ)"] == 0 && final["\(EV_ABS)/\(ABS_RX)"] == 0, "axes centred on SIGTERM: \(final)")
        try expect(final["\(EV_KEY)/\(BTN_TRIGGER)"] == 0, "trigger released on SIGTERM: \(final)")
        try expect(!FileSystem.exists(path), "the device was removed on SIGTERM")
    }
}

extension OutputTests {
    /// `--uinput spacemouse`: exactly the six axes; a held tilt keeps producing ABS_RX events every
    /// frame (100 and 99 alternately: the kernel drops repeats); back at rest the axis reads 0; on
    /// stream loss the device goes.
    static func spacemouse() throws {
        let (receiver, streamer) = try start("spacemouse")
        defer {
            try? receiver.send(signal: SIGTERM)
            _ = try? receiver.wait()
        }
        let tilt = AttitudeFrame(roll: 0, pitch: Float(12 * Double.pi / 180), yaw: 0)  // 12° forward: RX 100
        func rx(_ events: [EvdevDevice.Event]) -> [EvdevDevice.Event] {
            events.filter { $0.type == Int32(EV_ABS) && $0.code == Int32(ABS_RX) }
        }
        var attempt = 0
        var path: String
        var device: EvdevDevice
        var held: [EvdevDevice.Event]
        repeat {
            attempt += 1
            try streamer.send(tilt, buttons: [.clutch], now: 0)
            path = try node(named: "mouse3d spacemouse (3Dconnexion compatible)")
            device = try EvdevDevice(path: path)
            for code in [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ] {
                try expect(device.absoluteAxis(Int32(code))?.maximum == 350, "axis \(code) range ±350")
            }
            try expect(
                !device.hasEvent(type: Int32(EV_ABS), code: Int32(ABS_THROTTLE))
                    && !device.hasEvent(type: Int32(EV_REL), code: Int32(REL_X)),
                "only the six axes")
            for _ in 0..<20 {
                try streamer.send(tilt, buttons: [.clutch], now: 0)
                MonotonicClock.sleep(nanoseconds: 10_000_000)
            }
            held = rx(events(device, seconds: 60) { rx($0).count >= 15 })
            // The device read is gone: the receiver rested and removed it because its stream fell
            // silent for 500 ms between the first frame and the next ones (the whole suite's run
            // failed so once, with the seat VM booting beside this one). Its evidence is the device's
            // own end (a read refused), not a missing event: again, at most three times.
            let gone = held.count < 15 && (try? device.next()) == nil
            guard gone && attempt < 3 else { break }
            say("VMTEST-INFO the spacemouse's stream fell silent for 500 ms before its frames (device removed): again")
        } while true
        try expect(
            held.count >= 15 && held.allSatisfy { $0.value == 100 || $0.value == 99 },
            "a held tilt keeps ABS_RX flowing at 100/99: \(held.map(\.value))")
        for _ in 0..<5 {
            try streamer.send(AttitudeFrame(roll: 0, pitch: 0, yaw: 0), buttons: [.clutch], now: 0)
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        _ = events(device, seconds: 60) { _ in device.absoluteAxis(Int32(ABS_RX))?.value == 0 }
        try expect(device.absoluteAxis(Int32(ABS_RX))?.value == 0, "back at rest ABS_RX is 0")
        _ = events(device, seconds: 60)  // until the device is gone
        try expect(!FileSystem.exists(path), "the device was removed on stream loss")
    }
}

extension OutputTests {
    /// `mouse3d bench output` runs against the real uinput and reports the latency.
    static func latencyBench() throws {
        // The pointer's and the gamepad's (an attitude to its stick event), side by side.
        for mode in ["pointer", "gamepad"] {
            let path = "/tmp/bench-output.txt"
            let child = try ChildProcess(
                executable: mouse3d, arguments: ["bench", "output", "--mode", mode, "--frames", "2000"],
                standardOutputPath: path)
            let errors = try child.readAllErrors()
            try expect(try child.wait() == 0, "bench output --mode \(mode) failed: \(errors)")
            let text = String(decoding: try FileContents.read(path: path), as: UTF8.self).filter { $0 != "\n" }
            try expect(text.contains("p99"), "bench output printed: \(text)")
            say("VMTEST-INFO \(text) (release build, TCG)")
        }
    }
}

extension OutputTests {
    /// A receiver whose device cannot be created for one sender keeps serving the others: with
    /// /dev/uinput taken away after the first sender's device exists, a second sender's stream gets
    /// no device (said once), while the first one's pointer still moves to the count. Once uinput is
    /// back, the second sender, starting again after a pause, gets its own device.
    static func oneSenderFailsOthersServed() throws {
        let receiver = try ChildProcess(
            executable: mouse3d, arguments: ["receive", "--insecure", "--listen", "127.0.0.1:0", "--uinput", "pointer"])
        var stopped = false
        defer {
            if !stopped {
                try? receiver.send(signal: SIGTERM)
                _ = try? receiver.wait()
            }
        }
        let target = try SocketAddress.resolve(
            "127.0.0.1:\(try loopbackPort(announcedBy: receiver))", defaultPort: 0, passive: false)
        let first = try AttitudeStreamer(peers: [target], format: .datagram)
        let second = try AttitudeStreamer(peers: [target], format: .datagram)
        func send(_ streamer: AttitudeStreamer, yawDegrees: Double) throws {
            try streamer.send(
                AttitudeFrame(roll: 0, pitch: 0, yaw: Float(yawDegrees * .pi / 180)), buttons: [.clutch],
                now: MonotonicClock.nanoseconds())
        }
        func devices() throws -> Int {
            try DirectoryListing.names(in: "/sys/class/input").filter { $0.hasPrefix("event") }.filter {
                String(decoding: try FileContents.read(path: "/sys/class/input/\($0)/device/name"), as: UTF8.self)
                    .hasPrefix("mouse3d pointer")
            }.count
        }
        try send(first, yawDegrees: 0)
        let device = try EvdevDevice(path: try node(named: "mouse3d pointer"))

        try expect(rename("/dev/uinput", "/dev/uinput.away") == 0, "could not move /dev/uinput away: errno \(errno)")
        var restored = false
        defer { if !restored { _ = rename("/dev/uinput.away", "/dev/uinput") } }
        for i in 1...40 {  // both stream; the first turns 20° to the right
            try send(first, yawDegrees: -0.5 * Double(i))
            try send(second, yawDegrees: Double(i))
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        // Until the turn is all there (399 of 400), then 0.3 s for a last count that rounding left.
        var dx = sum(events(device, seconds: 60) { sum($0, code: Int32(REL_X)) >= 399 }, code: Int32(REL_X))
        dx += sum(events(device, seconds: 0.3), code: Int32(REL_X))
        try expect(
            abs(dx - 400) <= 1,
            "the first sender's pointer moved \(dx) counts while the second's device failed, expected 400")
        let during = try devices()
        try expect(during == 1, "one device only while /dev/uinput is away: \(during)")

        try expect(rename("/dev/uinput.away", "/dev/uinput") == 0, "could not put /dev/uinput back: errno \(errno)")
        restored = true
        var moved: Int32 = 0
        for i in 1...80 {  // the second pauses for 800 ms (its stream ends); the first goes on
            try send(first, yawDegrees: -20 - 0.25 * Double(i))
            // read as it comes: 80 frames overflow evdev's buffer
            moved += sum(events(device, seconds: 0.01), code: Int32(REL_X))
        }
        let before = moved
        moved += sum(events(device, seconds: 60) { before + sum($0, code: Int32(REL_X)) >= 399 }, code: Int32(REL_X))
        moved += sum(events(device, seconds: 0.2), code: Int32(REL_X))  // a last count rounding left
        try expect(
            abs(moved - 400) <= 1,
            "the first sender's pointer moved \(moved) counts during the second's pause, expected 400")
        for i in 1...30 {  // both again: the second starts anew and gets a device now
            try send(first, yawDegrees: -40)
            try send(second, yawDegrees: Double(i))
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        _ = try waitFor("a second pointer once /dev/uinput is back", seconds: 5) { try devices() == 2 ? true : nil }

        try receiver.send(signal: SIGTERM)
        let errors = try receiver.readAllErrors()
        stopped = true
        try expect(try receiver.wait() == 0, "the receiver exits cleanly: \(errors)")
        let skipped = errors.split(separator: "\n").filter { $0.contains("no virtual device, its frames are skipped") }
            .count
        try expect(skipped == 1, "the failure said once, not per frame (\(skipped) times): \(errors)")
        try expect(errors.contains("/dev/uinput"), "the failure names /dev/uinput: \(errors)")
    }
}
