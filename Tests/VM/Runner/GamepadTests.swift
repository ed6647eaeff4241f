import CLinux
import Glibc
import Mouse3DCore
import Mouse3DLinux
import VMDeviceEmulators

/// `mouse3d run --uinput gamepad` on the real kernel with emulated controllers on their real
/// drivers: the virtual pad's identity and capabilities, SDL taking it as a game controller with no
/// mapping supplied, the real pad hidden while mouse3d runs (and back after SIGTERM and SIGKILL),
/// its buttons, sticks and triggers passed through, the gyroscope on the right stick, and
/// everything released when the pad goes away.
enum GamepadTests {
    static let level = SIMD3(0.0, 0.0, 9.80665)
    static let key = Int32(EV_KEY)
    static let abs = Int32(EV_ABS)
    typealias C = Xbox360Layout.Code

    /// `mouse3d run --uinput gamepad` with `extra`, once its virtual pad exists: the process and
    /// the pad, opened for reading.
    static func start(_ extra: [String] = []) throws -> (ChildProcess, EvdevDevice) {
        let run = try SeatTests.mouse3dProcess(["run", "--uinput", "gamepad"] + extra)
        do {
            return (run, try EvdevDevice(path: try OutputTests.node(named: "mouse3d gamepad")))
        } catch {
            let (_, printed) = stop(run)
            throw VMTestFailure(description: "\(error); run printed: \(printed)")
        }
    }

    /// SIGTERM, then what the process printed and its status.
    @discardableResult
    static func stop(_ run: ChildProcess) -> (status: Int32?, printed: String) {
        try? run.send(signal: SIGTERM)
        let printed = (try? run.readAllErrors()) ?? ""
        return (try? run.wait(), printed)
    }

    /// Reads `device` until `want` holds of the value of `type`/`code` (libevdev keeps it from the
    /// events read) or `seconds` pass; returns whether it held and the last value.
    static func watch(
        _ device: EvdevDevice, _ type: Int32, _ code: Int32, seconds: Double = 5, until want: (Int32) -> Bool
    ) -> (held: Bool, value: Int32) {
        let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while true {
            let value = device.currentValue(type: type, code: code)
            if want(value) { return (true, value) }
            guard MonotonicClock.nanoseconds() < end else { return (false, value) }
            _ = OutputTests.events(device, seconds: 0.02)
        }
    }

    /// The event node of the input device named exactly `name`.
    static func exactNode(_ name: String) throws -> String {
        try waitFor("an input device named '\(name)'") {
            for entry in (try? DirectoryListing.names(in: "/sys/class/input")) ?? [] where entry.hasPrefix("event") {
                let text = String(
                    decoding: (try? FileContents.read(path: "/sys/class/input/\(entry)/device/name")) ?? [],
                    as: UTF8.self)
                if text.split(separator: "\n").first.map(String.init) == name { return "/dev/input/\(entry)" }
            }
            return nil
        }
    }

    /// The identity xpad gives a wired Xbox 360 pad, its keys and axes exactly (SDL numbers them in
    /// code order, so one more or less would shift its database's mapping), and SDL 2 (Debian's
    /// libsdl2, loaded as a game loads it) takes it as a game controller with no mapping supplied,
    /// and reads the gyroscope's turn on its right stick: a steady 30 °/s turn to the right is
    /// 30/360 of the stick's reach at the defaults (a game turning 360 °/s at full deflection),
    /// 2731 of 32767, within 2%.
    static func identityAndSDL() throws {
        let controller = try plugDualSense()
        defer { try? controller.unplug() }
        let gates = ScriptGate(at: [1])
        controller.stream(
            MotionScript([
                .init(seconds: 2, degreesPerSecond: .zero, metersPerSecondSquared: level),
                .init(seconds: 4, degreesPerSecond: SIMD3(0, 0, -30), metersPerSecondSquared: level),
                .init(seconds: 120, degreesPerSecond: .zero, metersPerSecondSquared: level)
            ]), gate: gates)
        let (run, pad) = try start()
        defer { stop(run) }
        let id = pad.identity
        try expect(
            id.bus == 3 && id.vendor == 0x045e && id.product == 0x028e && id.version == 0x0114,
            "the pad's id is \(id), xpad's 045e:028e on USB, version 0114 expected")
        let keys = (0x100..<0x300).map(Int32.init).filter { pad.hasEvent(type: key, code: $0) }
        try expect(keys == Xbox360Layout.keys.map(Int32.init), "its keys are \(keys.map { String($0, radix: 16) })")
        let axes = (0..<0x40).map(Int32.init).filter { pad.hasEvent(type: abs, code: $0) }
        try expect(axes == Xbox360Layout.axes.map { Int32($0.code) }, "its axes are \(axes)")
        for axis in Xbox360Layout.axes {
            let info = pad.absoluteAxis(Int32(axis.code))
            try expect(
                info?.minimum == Int(axis.minimum) && info?.maximum == Int(axis.maximum),
                "axis \(axis.code) spans \(String(describing: info)), \(axis.minimum)...\(axis.maximum) expected")
        }
        try expect(
            !pad.hasEvent(type: Int32(EV_FF), code: Int32(FF_RUMBLE)),
            "no force feedback: an upload nobody answers would block a game for 30 s")

        let sdl = try SDLGameControllers()
        let controllerInSDL = try sdl.openController(vendor: 0x045e, product: 0x028e)
        say(
            "VMTEST-INFO SDL 2 takes the virtual pad as '\(controllerInSDL.name)', a game controller by its mapping: \(controllerInSDL.mapping.prefix(120))…; SDL's joysticks: \(sdl.joysticks.map { "\(String($0.vendor, radix: 16)):\(String($0.product, radix: 16))\($0.isGameController ? " (controller)" : "")" })"
        )
        // The turn: 4 s from the gate; read from 1 s after the stick shows it begun (past half its
        // promise: the emulator's start, however late), for 2 s.
        let expected = 30.0 / 360 * 32767
        gates.open(through: 1)
        let begun = watch(pad, abs, Int32(C.absRX), seconds: 60) { Double($0) > expected / 2 }
        try expect(begun.held, "the turn never showed on the right stick: \(begun.value)")
        let turnSeen = MonotonicClock.nanoseconds()
        while MonotonicClock.nanoseconds() < turnSeen + 1_000_000_000 { _ = OutputTests.events(pad, seconds: 0.05) }
        var evdev: [Int32] = []
        var seen: [Int16] = []
        while MonotonicClock.nanoseconds() < turnSeen + 3_000_000_000 {
            _ = OutputTests.events(pad, seconds: 0.05)
            evdev.append(pad.currentValue(type: abs, code: Int32(C.absRX)))
            seen.append(sdl.axis(controllerInSDL, .rightX))
        }
        func median<T: Comparable>(_ values: [T]) -> T? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
        say(
            "VMTEST-INFO a 30 °/s turn right: the virtual right stick x read \(median(evdev).map(String.init) ?? "nothing") by evdev, \(median(seen).map(String.init) ?? "nothing") by SDL (\(Int(expected.rounded())) promised, ±2%); y \(pad.currentValue(type: abs, code: Int32(C.absRY)))"
        )
        for (what, value) in [("evdev", median(evdev).map(Double.init)), ("SDL", median(seen).map(Double.init))] {
            try expect(
                value.map { Swift.abs($0 / expected - 1) <= 0.02 } == true,
                "the right stick read \(value.map { String($0) } ?? "nothing") by \(what) in the turn, \(Int(expected)) ± 2% promised"
            )
        }
        let (status, printed) = stop(run)
        try expect(status == 0, "run exits cleanly on SIGTERM: \(printed.suffix(400))")
    }

    /// While mouse3d runs, another reader of the real pad's gamepad node gets nothing (the pad is
    /// grabbed; the virtual pad shows the press instead); after SIGTERM, and after SIGKILL (the
    /// kernel closes the grab with the process), it gets the pad's events again.
    static func hidesRealPad() throws {
        let controller = try plugDualSense()
        defer { try? controller.unplug() }
        controller.stream(MotionScript([.init(seconds: 120, degreesPerSecond: .zero, metersPerSecondSquared: level)]))
        let reader = try EvdevDevice(path: try exactNode(DualSenseEmulator.name))
        /// Presses cross and lets go; returns whether `reader` saw BTN_SOUTH go down within `seconds`.
        func readerSeesPress(seconds: Double) -> Bool {
            _ = OutputTests.events(reader, seconds: 0.05)
            controller.hold([.cross])
            defer {
                controller.hold([])
                _ = watch(reader, key, Int32(BTN_SOUTH), seconds: 1) { $0 == 0 }
            }
            return OutputTests.events(reader, seconds: seconds).contains {
                $0.type == key && $0.code == Int32(BTN_SOUTH) && $0.value == 1
            }
        }
        try expect(readerSeesPress(seconds: 5), "the reader sees the pad before mouse3d runs")
        /// `doctor`'s line about the pad.
        func doctorSays() throws -> String {
            let out = "/tmp/doctor-gamepad.json"
            let doctor = try ChildProcess(
                executable: mouse3d, arguments: ["doctor", "--json", "--offline"], standardOutputPath: out)
            _ = try doctor.readAllErrors()
            _ = try doctor.wait()
            let text = String(decoding: (try? FileContents.read(path: out)) ?? [], as: UTF8.self)
            return text.split(separator: "\n").first { $0.contains("\"name\":\"gamepad\"") }.map(String.init)
                ?? "(no gamepad line)"
        }
        let free = try doctorSays()
        try expect(
            free.contains("\"status\":\"ok\"") && free.contains("can be hidden"), "doctor with the pad free: \(free)")
        for (ending, signal) in [("SIGTERM", SIGTERM), ("SIGKILL", SIGKILL)] {
            let (run, pad) = try start()
            if signal == SIGTERM {
                let held = try doctorSays()
                try expect(held.contains("another program holds it"), "doctor while mouse3d holds the pad: \(held)")
                say("VMTEST-INFO doctor, the pad free: \(free); held by run --uinput gamepad: \(held)")
            }
            _ = OutputTests.events(reader, seconds: 0.2)
            controller.hold([.cross])
            let shown = watch(pad, key, Int32(BTN_SOUTH)) { $0 == 1 }
            let leaked = OutputTests.events(reader, seconds: 1).filter { $0.type == key }
            controller.hold([])
            _ = watch(pad, key, Int32(BTN_SOUTH)) { $0 == 0 }
            try? run.send(signal: signal)
            let printed = (try? run.readAllErrors()) ?? ""
            _ = try? run.wait()
            try expect(
                shown.held, "the virtual pad did not show cross as BTN_SOUTH: run printed \(printed.suffix(300))")
            try expect(leaked.isEmpty, "while mouse3d ran, the reader got \(leaked) from the real pad")
            try expect(
                printed.contains("hidden from other programs") || signal == SIGKILL,
                "run did not say it hid the pad: \(printed.suffix(300))")
            try expect(readerSeesPress(seconds: 5), "after \(ending) the reader does not see the real pad")
            say("VMTEST-INFO the real pad hidden while run --uinput gamepad ran, seen again after \(ending)")
        }
    }

    /// Every button of a DualSense reaches the virtual pad by its position (cross BTN_SOUTH …, the
    /// PS button BTN_MODE), the left stick within one count of the pad's 0–255, both triggers with
    /// all 256 levels; a Switch Pro Controller's digital ZL and ZR pull the triggers fully, its
    /// d-pad is the hat, and its capture button has no place.
    static func buttonsSticksTriggers() throws {
        do {
            let controller = try plugDualSense()
            defer { try? controller.unplug() }
            controller.stream(
                MotionScript([.init(seconds: 300, degreesPerSecond: .zero, metersPerSecondSquared: level)]))
            let (run, pad) = try start()
            defer { stop(run) }
            let buttons: [(DualSenseEmulator.Button, Int32)] = [
                (.cross, Int32(BTN_SOUTH)), (.circle, Int32(BTN_EAST)), (.triangle, Int32(BTN_NORTH)),
                (.square, Int32(BTN_WEST)), (.l1, Int32(BTN_TL)), (.r1, Int32(BTN_TR)), (.create, Int32(BTN_SELECT)),
                (.options, Int32(BTN_START)), (.ps, Int32(BTN_MODE)), (.l3, Int32(BTN_THUMBL)),
                (.r3, Int32(BTN_THUMBR))
            ]
            for (button, code) in buttons {
                controller.hold([button])
                let down = watch(pad, key, code) { $0 == 1 }
                controller.hold([])
                let up = watch(pad, key, code) { $0 == 0 }
                try expect(down.held && up.held, "\(button) did not press and release key \(code) on the virtual pad")
            }
            for raw: UInt8 in [0, 1, 64, 127, 128, 200, 254, 255] {
                controller.set(sticks: [raw, 0x80, 0x80, 0x80], dpad: 8)
                let expected = Xbox360Layout.stickValue(Double(raw) / 255 * 2 - 1)
                let seen = watch(pad, abs, Int32(C.absX)) { Swift.abs($0 - expected) <= 2 }
                let back = (Double(seen.value) + 32768) / 65535 * 255
                try expect(
                    Swift.abs(back - Double(raw)) <= 1,
                    "the left stick at \(raw) of 0–255 read \(seen.value) on the virtual pad (\(back) of 255)")
            }
            controller.set(sticks: [0x80, 0x80, 0x80, 0x80], dpad: 8)
            var levels: Set<Int32> = []
            for trigger in 0..<2 {
                let code = Int32(trigger == 0 ? C.absZ : C.absRZ)
                for level in (0...255).reversed() {
                    controller.set(triggers: trigger == 0 ? [UInt8(level), 0] : [0, UInt8(level)])
                    let seen = watch(pad, abs, code, seconds: 3) { $0 == Int32(level) }
                    try expect(seen.held, "trigger \(trigger) pulled to \(level) read \(seen.value)")
                    if trigger == 0 { levels.insert(seen.value) }
                }
            }
            say(
                "VMTEST-INFO a DualSense's 11 buttons, its left stick and \(levels.count) trigger levels on the virtual pad"
            )
        }
        do {
            let (controller, _) = try SwitchControllerTests.plug(.proController)
            defer { try? controller.unplug() }
            controller.stream(
                MotionScript([.init(seconds: 300, degreesPerSecond: .zero, metersPerSecondSquared: level)]))
            let (run, pad) = try start()
            defer { stop(run) }
            // The report's 24 button bits: byte 3 (ZR 0x80), byte 4 (capture 0x20, home 0x10), byte 5 (ZL 0x80, right 0x04).
            for (bits, type, code, value, what) in [
                (UInt32(1) << 7, abs, Int32(C.absRZ), Int32(255), "ZR"),
                (UInt32(1) << 23, abs, Int32(C.absZ), Int32(255), "ZL"),
                (UInt32(1) << 12, key, Int32(BTN_MODE), Int32(1), "home"),
                (UInt32(1) << 18, abs, Int32(C.absHat0X), Int32(1), "d-pad right")
            ] {
                controller.hold(buttonBits: bits)
                let down = watch(pad, type, code) { $0 == value }
                controller.hold(buttonBits: 0)
                let up = watch(pad, type, code) { $0 == 0 }
                try expect(down.held && up.held, "the Switch Pro's \(what) read \(down.value), then \(up.value)")
            }
            controller.hold(buttonBits: 1 << 13)  // capture: BTN_Z from hid-nintendo, not a 360 pad's
            let leaked = OutputTests.events(pad, seconds: 1).filter { $0.type == key }
            controller.hold(buttonBits: 0)
            try expect(leaked.isEmpty, "the capture button reached the virtual pad: \(leaked)")
            say("VMTEST-INFO a Switch Pro Controller's ZL/ZR as full triggers, home, its d-pad as the hat")
        }
    }

    /// The gyroscope on the right stick: at rest for 10 s with an uncalibrated gyroscope's offset
    /// (0.4/0/0.5 °/s in the sensor's axes) the stick stays at 0 (turns under gamepad.rest_speed, 1 °/s, move
    /// nothing); a steady 30 °/s turn gives 30/360 of the reach within 2%, and with the game's dead
    /// zone given as 0.2, 0.2 + 0.8 × 30/360; with the clutch in hold-off mode, holding it centres
    /// the stick and letting go resumes.
    static func gyroStick() throws {
        for deadZone in [0.0, 0.2] {
            let controller = try plugDualSense()
            defer { try? controller.unplug() }
            let gates = ScriptGate(at: [1])
            // In the DualSense's own axes, as the driver reads them (the script is in mouse3d's gamepad
            // frame); the offset off the turn's axis (the sensor's y), so that it cannot lend the turn
            // a share of the tolerance before the fusion learns it.
            controller.startStreaming(
                MotionScript([
                    .init(seconds: 12, degreesPerSecond: .zero, metersPerSecondSquared: level),
                    .init(seconds: 10, degreesPerSecond: SIMD3(0, 0, -30), metersPerSecondSquared: level),
                    .init(seconds: 120, degreesPerSecond: .zero, metersPerSecondSquared: level)
                ]).converted(DualSenseEmulator.kernelAxes), hertz: 250, integrating: true,
                gyroBiasDegreesPerSecond: SIMD3(0.4, 0, 0.5), gate: gates)
            let (run, pad) = try start(
                ["--game-dead-zone", "\(deadZone)", "--clutch", "BTN_TL", "--clutch-mode", "hold-off"])
            defer { stop(run) }
            gates.open(through: 1)
            // At rest (script 1 s to 12 s): read until the emulator has sent 11.7 s of its script, by
            // its clock, not this runner's (three VMs on two cores once starved this thread past
            // the turn's start when it read 10 s by its own clock), and at least 10 s of it.
            var atRest: [EvdevDevice.Event] = []
            let restRead = MonotonicClock.nanoseconds()
            while controller.scriptSecondsSent < 11.7 && MonotonicClock.nanoseconds() < restRead + 60_000_000_000 {
                atRest += OutputTests.events(pad, seconds: 0.05).filter {
                    $0.type == abs && ($0.code == Int32(C.absRX) || $0.code == Int32(C.absRY)) && $0.value != 0
                }
            }
            try expect(
                controller.scriptSecondsSent >= 11.7,
                "the emulator sent only \(controller.scriptSecondsSent) s of its script in 60 s")
            try expect(atRest.isEmpty, "at rest the right stick moved: \(atRest.prefix(5))")
            // The turn, script 12 s to 22 s: from 1.5 s after the stick shows it begun (past half
            // its promise: the emulator's start, however late a busy machine made it), not by the
            // test's clock.
            let expected = (deadZone + (1 - deadZone) * 30.0 / 360) * 32767
            let begun = watch(pad, abs, Int32(C.absRX), seconds: 60) { Double($0) > expected / 2 }
            try expect(begun.held, "the turn never showed on the right stick: \(begun.value)")
            let turnSeen = MonotonicClock.nanoseconds()
            while MonotonicClock.nanoseconds() < turnSeen + 1_500_000_000 {
                _ = OutputTests.events(pad, seconds: 0.05)
            }
            /// The right stick's x over `seconds`, read every 50 ms: its median.
            func median(seconds: Double) -> Int32 {
                var seen: [Int32] = []
                let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
                while MonotonicClock.nanoseconds() < end {
                    _ = OutputTests.events(pad, seconds: 0.05)
                    seen.append(pad.currentValue(type: abs, code: Int32(C.absRX)))
                }
                return seen.sorted()[seen.count / 2]
            }
            let turning = median(seconds: 1)
            controller.hold([.l1])
            let held = watch(pad, abs, Int32(C.absRX), seconds: 2) { $0 == 0 }
            controller.hold([])
            _ = watch(pad, abs, Int32(C.absRX), seconds: 2) { $0 != 0 }
            let resumed = median(seconds: 0.5)
            func close(_ v: Int32) -> Bool { Swift.abs(Double(v) / expected - 1) <= 0.02 }
            let tl = pad.currentValue(type: key, code: Int32(BTN_TL))
            say(
                "VMTEST-INFO gyro stick, game dead zone \(deadZone): 0 for 10 s at rest with a 0.4/0/0.5 °/s offset; a 30 °/s turn read \(turning) (median of 1 s; \(Int(expected.rounded())) ± 2% promised); clutch held off: \(held.value); let go: \(resumed)"
            )
            try expect(
                close(turning), "a 30 °/s turn read \(turning) on the right stick, \(Int(expected)) ± 2% promised")
            try expect(held.held, "the clutch held off left the stick at \(held.value)")
            try expect(close(resumed), "the clutch let go: the stick read \(resumed)")
            try expect(tl == 0, "the clutch's BTN_TL reached the virtual pad")
        }
    }

    /// Unplugged mid-turn with cross held and the left stick pushed: within 100 ms of the kernel
    /// removing the pad the virtual pad's right stick is centred, its left stick centred, BTN_SOUTH
    /// released (the gyro part goes stale 50 ms after the last sample, which may come first).
    static func unplugMidTurn() throws {
        let controller = try plugDualSense()
        var plugged = true
        defer { if plugged { try? controller.unplug() } }
        controller.stream(
            MotionScript([
                .init(seconds: 4, degreesPerSecond: .zero, metersPerSecondSquared: level),
                .init(seconds: 120, degreesPerSecond: SIMD3(0, 0, -30), metersPerSecondSquared: level)
            ]))
        let (run, pad) = try start()
        defer { stop(run) }
        let turning = watch(pad, abs, Int32(C.absRX), seconds: 30) { $0 > 2000 }
        controller.hold([.cross])
        controller.set(sticks: [255, 0x80, 0x80, 0x80], dpad: 8)
        let pressed = watch(pad, key, Int32(BTN_SOUTH)) { $0 == 1 }
        let pushed = watch(pad, abs, Int32(C.absX)) { $0 > 30000 }
        try expect(turning.held && pressed.held && pushed.held, "before unplugging: \(turning), \(pressed), \(pushed)")
        // UHID_DESTROY removes the HID device, and the kernel its input devices, before the write
        // returns: from then on the kernel has told every reader. Under TCG that removal alone took
        // 150 ms (synchronize_rcu and the driver's teardown on two busy virtual CPUs).
        let unplugged = MonotonicClock.nanoseconds()
        try controller.unplug()
        let removed = MonotonicClock.nanoseconds()
        plugged = false
        var released: [Int32: UInt64] = [:]
        let codes: [(Int32, Int32)] = [(abs, Int32(C.absRX)), (abs, Int32(C.absX)), (key, Int32(BTN_SOUTH))]
        let end = unplugged + 5_000_000_000
        while released.count < codes.count && MonotonicClock.nanoseconds() < end {
            for e in OutputTests.events(pad, seconds: 0.02) where e.value == 0 {
                for (type, code) in codes where e.type == type && e.code == code && released[code] == nil {
                    released[code] = UInt64(e.timeNanoseconds)
                }
            }
        }
        func ms(_ t: UInt64?, from start: UInt64) -> Double? { t.map { Double(Int64($0) - Int64(start)) / 1e6 } }
        let afterRemoval = codes.map { ms(released[$0.1], from: removed) }
        let afterUnplug = codes.map { ms(released[$0.1], from: unplugged) }
        func said(_ v: Double?) -> String { v.map { "\((($0 * 10).rounded() / 10)) ms" } ?? "never" }
        say(
            "VMTEST-INFO unplugged mid-turn (the kernel took \(said(ms(removed, from: unplugged))) to remove the pad): right stick x centred \(said(afterRemoval[0])) after the removal (\(said(afterUnplug[0])) after the unplug began), left stick x \(said(afterRemoval[1])) (\(said(afterUnplug[1]))), BTN_SOUTH released \(said(afterRemoval[2])) (\(said(afterUnplug[2])))"
        )
        for (i, what) in ["the right stick", "the left stick", "BTN_SOUTH"].enumerated() {
            try expect(
                afterRemoval[i].map { $0 <= 100 } == true,
                "\(what) at rest \(said(afterRemoval[i])) after the kernel removed the pad, 100 ms promised")
        }
    }

    /// `receive --uinput gamepad` (a controller or a phone on another machine: no real pad): a
    /// sender's frames turning right at 30 °/s, stamped on its own clock 10 ms apart, deflect the
    /// right stick to 30/360 of its reach (2731 ± 2%), measured on the sender's stamps whatever the
    /// sending's own jitter; the primary click pulls the right trigger; when the frames stop, the
    /// stick is centred before the stream is given up (the gyro part goes stale first).
    static func receiveGamepad() throws {
        let (receiver, streamer) = try OutputTests.start("gamepad")
        defer {
            try? receiver.send(signal: SIGTERM)
            _ = try? receiver.wait()
        }
        let start = MonotonicClock.nanoseconds()
        var i: UInt64 = 0
        func send(_ n: Int, buttons: ButtonState = [.clutch]) throws {
            for _ in 0..<n {
                let yaw = -30.0 * Double(i) * 0.01 * .pi / 180
                try streamer.send(
                    AttitudeFrame(roll: 0, pitch: 0, yaw: Float(yaw)), buttons: buttons, now: start + i * 10_000_000)
                i += 1
                MonotonicClock.sleep(nanoseconds: 10_000_000)
            }
        }
        try send(1)
        let pad = try EvdevDevice(path: try OutputTests.node(named: "mouse3d gamepad"))
        var seen: [Int32] = []
        for _ in 0..<20 {
            try send(5)
            _ = OutputTests.events(pad, seconds: 0.001)
            seen.append(pad.currentValue(type: abs, code: Int32(C.absRX)))
        }
        let median = seen.sorted()[seen.count / 2]
        try send(5, buttons: [.clutch, .primary])
        let pulled = watch(pad, abs, Int32(C.absRZ), seconds: 2) { $0 == 255 }
        let stopped = MonotonicClock.nanoseconds()
        let centred = watch(pad, abs, Int32(C.absRX), seconds: 0.4) { $0 == 0 }
        let after = Double(MonotonicClock.nanoseconds() - stopped) / 1e6
        say(
            "VMTEST-INFO receive --uinput gamepad: a sender's 30 °/s turn read \(median) on the right stick (2731 ± 2% promised); its primary click pulled the right trigger to \(pulled.value); the frames stopped, the stick read \(centred.value) \(Int(after)) ms later"
        )
        try expect(Swift.abs(Double(median) / 2731 - 1) <= 0.02, "the right stick read \(median) in the turn")
        try expect(pulled.held, "the primary click left the right trigger at \(pulled.value)")
        try expect(centred.held, "the frames stopped and the right stick stayed at \(centred.value)")
    }
}
