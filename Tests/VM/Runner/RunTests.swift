import CLinux
import Glibc
import Mouse3DCore
import Mouse3DLinux
import VMDeviceEmulators

enum RunTests {
    /// `mouse3d run --uinput pointer` with an emulated controller on the real kernel and its real
    /// driver, one physical script for every model (given in mouse3d's frame; each emulator turns it
    /// into its driver's axes): held level and still (for the run's start-up, which takes seconds
    /// under TCG, then at least 10 s more watched), turned 90° to the left about the
    /// vertical and back. Read back from the virtual pointer: 0 counts at rest, the turn worth the
    /// sensitivity's promise (20 counts per degree: 1800) within 10, less than 1% of it vertically,
    /// and back to within 1 count of the start.
    /// `rest`: the release build starts in a second or two under TCG, in several beside other work:
    /// the emulator holds still at ``restGate`` until the virtual pointer has appeared, so the rest
    /// watched is at least `rest` − 1.5 s however long the start took (a fixed 20 s rest was mostly
    /// waiting: the gate saves about 8 s a test).
    /// A controller without a clock of its own in its reports (hid-nintendo stamps samples from an
    /// average of report arrivals) is only a device while its emulator keeps its schedule: when the
    /// VM starves it for long, its reports come slower than its samples claim, which on hardware
    /// means reports lost, and mouse3d rightly scales time up. A turn that misses while the
    /// emulator ran more than 25 ms behind says nothing about mouse3d: it is said, and turned again
    /// (three attempts); a miss on time fails.
    /// `stallInTurn`: the emulator's thread stalls this long 0.2 s before the end of the turn (as a
    /// starved VM stalls it), then catches up as it does, past the next window's end.
    static func pointer(
        from plug: () throws -> any MotionControllerEmulator, rest: Double = 12, stallInTurn: Double? = nil
    ) throws {
        precondition(rest - 0.5 - restGate >= 10, "a rest of \(rest) s watches less than 10 s")
        for attempt in 1...3 {
            if try pointerAttempt(from: plug, rest: rest, stallInTurn: stallInTurn, lastAttempt: attempt == 3) {
                return
            }
        }
    }

    /// Script seconds into the first rest where an emulator holds still until mouse3d's virtual
    /// device has appeared (``ScriptGate``): the rest is watched from there.
    static let restGate = 1.0

    /// One attempt of ``pointer(from:rest:)``; false when the turn missed while the emulator was late.
    static func pointerAttempt(
        from plug: () throws -> any MotionControllerEmulator, rest: Double, stallInTurn: Double?, lastAttempt: Bool
    ) throws -> Bool {
        let controller = try plug()
        defer { try? controller.unplug() }
        let level = SIMD3(0.0, 0.0, 9.80665)
        let turn = 2.0
        let pause = 1.0
        let script = MotionScript([
            .init(seconds: rest, degreesPerSecond: .zero, metersPerSecondSquared: level),
            .init(seconds: turn, degreesPerSecond: SIMD3(0, 0, 45), metersPerSecondSquared: level),  // 90° to the left
            .init(seconds: pause, degreesPerSecond: .zero, metersPerSecondSquared: level),
            .init(seconds: turn, degreesPerSecond: SIMD3(0, 0, -45), metersPerSecondSquared: level),  // and back
            .init(seconds: 30, degreesPerSecond: .zero, metersPerSecondSquared: level)
        ])
        let started = MonotonicClock.nanoseconds()
        let readerDropsBefore = OutputTests.readerDrops
        // Each window ends inside a still stretch, half a second or more from any motion, where the
        // emulator holds until the window is closed.
        let ends = [rest - 0.5, rest + turn + pause / 2, rest + 2 * turn + pause + 1]
        let gates = ScriptGate(
            at: [restGate] + ends, stall: stallInTurn.map { (at: rest + turn - 0.2, seconds: $0) })
        controller.stream(script, gate: gates)
        let run = try SeatTests.mouse3dProcess(["run", "--uinput", "pointer"])
        defer {
            try? run.send(signal: SIGTERM)
            _ = try? run.wait()
        }
        // The device appears with the first attitude.
        let device: EvdevDevice
        do {
            device = try EvdevDevice(path: try OutputTests.node(named: "mouse3d pointer"))
        } catch {
            say("VMTEST-INFO run's threads when the wait ended:\n\(threadStates(of: run.pid))")
            try? run.send(signal: SIGTERM)
            let printed = (try? run.readAllErrors()) ?? ""
            throw VMTestFailure(
                description:
                    "\(error); run (status \((try? run.wait()).map(String.init) ?? "?") after SIGTERM) printed: \(printed)"
            )
        }
        let opened = Double(MonotonicClock.nanoseconds() - started) * 1e-9
        gates.open(through: restGate)  // the rest watched from here: ends[0] - restGate seconds or more
        func moved(until scriptSeconds: Double) -> (x: Int32, y: Int32) {
            pointerMoves(device, through: scriptSeconds, gates: gates, sent: { controller.scriptSecondsSent })
        }
        let atRest = moved(until: ends[0])
        let turned = moved(until: ends[1])
        let turnWindowClosed = MonotonicClock.nanoseconds()
        let back = moved(until: ends[2])
        try run.send(signal: SIGTERM)
        let status = try run.wait()
        let printed = (try? run.readAllErrors()) ?? ""
        // What mouse3d said of the driver's clock and of anything else on the way.
        let said = printed.split(separator: "\n").suffix(8)
        let kept = keptSchedule(controller, until: turnWindowClosed)
        say(
            "VMTEST-INFO run --uinput pointer from \(controller.modelName) (appeared after \(opened) s): at rest \(rest - 0.5 - restGate) s or more \(atRest), 90° left \(turned), back \(back); 20 counts per degree promise 1800; the emulator held \(Int(gates.secondsHeld * 1000)) ms at the gates; \(kept.said); mouse3d said: \(said.joined(separator: " | "))"
        )
        try expect(atRest.x == 0 && atRest.y == 0, "moved at rest: \(atRest)")
        // The kernel dropped the device's events while mouse3d, starved, fell behind reading them:
        // that motion is gone, whatever mouse3d does (said on its closing lines).
        // In any window: a --busy run lost 621 counts of the way back so (the turn was whole).
        let dropped = printed.split(separator: "\n").first { $0.contains("the kernel dropped this device's events") }
        let missed =
            abs(Double(-turned.x) - 1800) > 10 || abs(atRest.x + turned.x + back.x) > 1
            || abs(atRest.y + turned.y + back.y) > 1
        if missed, let dropped, !lastAttempt {
            say(
                "VMTEST-INFO the turn moved \(turned.x), the way back \(back.x), and mouse3d said: \(dropped): turned again"
            )
            return false
        }
        // This test's own reader of the virtual pointer, starved, fell behind: its counts are gone.
        if missed && OutputTests.readerDrops > readerDropsBefore && !lastAttempt {
            say(
                "VMTEST-INFO the turn moved \(turned.x), the way back \(back.x), and this test's reader of the virtual pointer fell behind (the kernel dropped its events): turned again"
            )
            return false
        }
        if abs(Double(-turned.x) - 1800) > 10 && !kept.kept && !lastAttempt {
            say(
                "VMTEST-INFO the turn moved \(turned.x) while the emulated \(controller.modelName) did not keep its schedule: turned again"
            )
            return false
        }
        try expect(
            abs(Double(-turned.x) - 1800) <= 10,
            "a 90° left turn moved \(turned.x) counts, 1800 ± 10 to the left promised (\(kept.said))")
        try expect(abs(turned.y) < 18, "a level turn moved vertically: \(turned.y) (1% is 18)")
        let total = (atRest.x + turned.x + back.x, atRest.y + turned.y + back.y)
        try expect(abs(total.0) <= 1 && abs(total.1) <= 1, "turned back, the pointer is \(total) from the start")
        try expect(status == 0, "run exits cleanly on SIGTERM: \(printed.suffix(400))")
        return true
    }

    /// Whether an emulator whose reports carry no clock kept its schedule over the window mouse3d
    /// measures the driver's clock against arrivals (its last 2048 samples, 683 reports) up to
    /// `end`: the same estimate, of its reports' due times against their sending, within 0.3%.
    static func keptSchedule(_ controller: any MotionControllerEmulator, until end: UInt64) -> (
        kept: Bool, said: String
    ) {
        guard let times = controller.reportTimes else { return (true, "its reports carry its clock") }
        let window = Array(times.filter { $0.sent <= end }.suffix(683))
        var estimator = SamplePeriodEstimator(window: max(8, window.count), minimumSamples: 8)
        for t in window { estimator.add(driverTime: Double(t.due) * 1e-9, arrivalTime: Double(t.sent) * 1e-9) }
        guard let estimate = estimator.estimate else { return (true, "too few reports to judge the emulator") }
        let worst = window.map { Double($0.sent &- $0.due) / 1e6 }.max() ?? 0
        let ratio = (estimate.ratio * 10000).rounded() / 10000
        return (
            abs(estimate.ratio - 1) <= 0.003,
            "the emulator's reports came at \(ratio) of their schedule's rate over mouse3d's window, at worst \(Int(worst)) ms late"
        )
    }

    static func pointerFromDualSense() throws { try pointer(from: plugDualSense) }
    static func pointerFromDualShock4() throws { try pointer(from: { try plugController(DualShock4Emulator()) }) }
    /// hid-nintendo stamps its first 300 reports (4.5 s) from a default interval before its own
    /// average: a Switch controller's rest stays 20 s, as before the rest gate, so that mouse3d's
    /// estimate of the driver's clock (its last 2048 samples, about 10 s) lies past them at the turn.
    static let switchRest = 20.0
    static func pointerFromSwitchPro() throws {
        try pointer(from: { try SwitchControllerTests.plug(.proController).0 }, rest: switchRest)
    }
    static func pointerFromJoyConLeft() throws {
        try pointer(from: { try SwitchControllerTests.plug(.joyConLeft).0 }, rest: switchRest)
    }
    static func pointerFromJoyConRight() throws {
        try pointer(from: { try SwitchControllerTests.plug(.joyConRight).0 }, rest: switchRest)
    }

    /// The emulator starved for 1.5 s near the end of the turn (a busy host's VM, seen up to 1.2 s):
    /// a DualSense, whose reports carry their clock, sends one report spanning the stall; a Switch
    /// Pro Controller, whose reports carry none, sends the reports it owes in a burst, which
    /// hid-nintendo stamps from its average interval and mouse3d sees arrive together. Either way
    /// the turn, and the way back, count in full.
    static func pointerFromDualSenseStalled() throws { try pointer(from: plugDualSense, stallInTurn: 1.5) }
    static func pointerFromSwitchProStalled() throws {
        try pointer(from: { try SwitchControllerTests.plug(.proController).0 }, rest: switchRest, stallInTurn: 1.5)
    }

    /// `mouse3d calibrate` on an emulated DualSense lying still with a gyroscope offset of
    /// 0.6/-0.5/0.8 °/s: it stores that bias (to the controller's resolution) under the device's id,
    /// and the next `run` says in its start-up line that it starts from it.
    static func calibrateDualSense() throws {
        let data = "/tmp/calibrate-data"
        try? FileSystem.removeDirectory(data)
        FileSystem.setEnvironment("XDG_DATA_HOME", data)
        defer { FileSystem.setEnvironment("XDG_DATA_HOME", nil) }
        let controller = try plugDualSense()
        defer { try? controller.unplug() }
        let level = SIMD3(0.0, 0.0, 9.80665)
        let bias = SIMD3(0.6, -0.5, 0.8)
        controller.startStreaming(
            MotionScript([.init(seconds: 60, degreesPerSecond: .zero, metersPerSecondSquared: level)]),
            hertz: 250, gyroBiasDegreesPerSecond: bias)
        let calibrate = try ChildProcess(
            executable: mouse3d, arguments: ["calibrate", "--seconds", "3", "--timeout", "60"],
            standardOutputPath: data + ".out")
        let errors = try calibrate.readAllErrors()
        try expect(try calibrate.wait() == 0, "calibrate failed: \(errors)")
        let output = String(decoding: try FileContents.read(path: data + ".out"), as: UTF8.self)
        say("VMTEST-INFO calibrate: \(output.split(separator: "\n").first ?? "")")
        let words = output.split(separator: " ")
        guard let i = words.firstIndex(of: "bias"), i + 1 < words.count else {
            throw VMTestFailure(description: "calibrate printed no bias: \(output)")
        }
        let measured = words[i + 1].split(separator: "/").compactMap { Double($0) }
        try expect(
            measured.count == 3 && zip(measured, [bias.x, bias.y, bias.z]).allSatisfy { abs($0 - $1) < 0.05 },
            "calibrate measured \(words[i + 1]) °/s for an offset of 0.6/-0.5/0.8")
        try expect(output.contains("evdev 054c:0ce6:"), "stored under the controller's vendor:product:uniq: \(output)")
        let files = try DirectoryListing.names(in: data + "/mouse3d/calibration")
        try expect(files.count == 1, "one calibration file: \(files)")

        let run = try ChildProcess(
            executable: mouse3d, arguments: ["run", "--print", "--recalibrate", "BTN_SOUTH"],
            standardOutputPath: "/dev/null")
        defer {
            try? run.send(signal: SIGTERM)
            _ = try? run.wait()
        }
        var startup = ""
        let deadline = MonotonicClock.nanoseconds() + 60_000_000_000
        while MonotonicClock.nanoseconds() < deadline, let line = try run.readErrorLine() {
            if line.contains("running ") {
                startup = line
                break
            }
        }
        say("VMTEST-INFO run: \(startup)")
        try expect(
            startup.contains("gyroscope bias \(words[i + 1]) °/s from calibration"), "run's start-up line: '\(startup)'"
        )

        // The recalibrate button: pressed while the controller lies still, a new measurement 5 s later.
        try FileSystem.remove(data + "/mouse3d/calibration/" + files[0])
        controller.hold([.cross])
        MonotonicClock.sleep(nanoseconds: 200_000_000)
        controller.hold([])
        var said: [String] = []
        let recalibrationDeadline = MonotonicClock.nanoseconds() + 40_000_000_000
        while MonotonicClock.nanoseconds() < recalibrationDeadline, let line = try run.readErrorLine() {
            said.append(line)
            if line.contains("calibrated:") { break }
        }
        say("VMTEST-INFO run --recalibrate BTN_SOUTH: \(said.joined(separator: " | "))")
        try expect(said.contains { $0.contains("calibrating (BTN_SOUTH)") }, "the press was not reported: \(said)")
        try expect(
            said.contains {
                $0.contains("calibrated: gyroscope bias \(words[i + 1]) °/s") && $0.contains("in use; stored in")
            },
            "no recalibration stored: \(said)")
        try expect(
            try DirectoryListing.names(in: data + "/mouse3d/calibration").count == 1,
            "the recalibration was stored again")
    }
}

extension RunTests {
    /// `run --dsu` with an emulated DualSense: its sticks and d-pad (a hat in hid-playstation)
    /// reach the DSU report: 0–255 sticks with y up positive, the d-pad on its bits. The client reads
    /// the report's bytes by their offsets in the protocol (buttons at 36, sticks at 40).
    static func dsuSticksFromDualSense() throws {
        let controller = try plugDualSense()
        defer { try? controller.unplug() }
        try dsuSticks(
            controller, "DualSense",
            moved: { controller.set(sticks: [0, 0, 255, 255], dpad: 2) },
            downLeft: { controller.set(sticks: [0x80, 0x80, 0x80, 0x80], dpad: 5) })
    }

    /// The same from an emulated Switch Pro Controller (hid-nintendo: ±32767 sticks with y up
    /// negative, the d-pad as a hat), whose raw sticks are 12-bit with y up larger.
    static func dsuSticksFromSwitchPro() throws {
        let (controller, _) = try SwitchControllerTests.plug(.proController)
        defer { try? controller.unplug() }
        let c = 2048
        let reach = 1400
        try dsuSticks(
            controller, "Switch Pro Controller",
            moved: {
                controller.set(leftStick: (c - reach, c + reach), rightStick: (c + reach, c - reach))
                controller.hold(buttonBits: 1 << 18)  // d-pad right
            },
            downLeft: {
                controller.set(leftStick: (c, c), rightStick: (c, c))
                controller.hold(buttonBits: 1 << 16 | 1 << 19)  // d-pad down and left
            })
    }

    /// `run --dsu` with `controller` held still: at rest the sticks read centred; after `moved` (left
    /// stick left and up, right stick right and down, d-pad right) and `downLeft` (sticks centred,
    /// d-pad down-left) the report's bytes follow.
    static func dsuSticks(
        _ controller: any MotionControllerEmulator, _ model: String, moved: () -> Void, downLeft: () -> Void
    ) throws {
        let level = SIMD3(0.0, 0.0, 9.80665)
        controller.stream(MotionScript([.init(seconds: 60, degreesPerSecond: .zero, metersPerSecondSquared: level)]))
        let dsu = try DSURun(port: 26760, who: model)
        defer { dsu.stop() }
        /// The buttons byte and the four stick bytes of the next reports, until `want` holds (5 s).
        func report(_ what: String, _ want: (UInt8, [UInt8]) -> Bool) throws -> (UInt8, [UInt8]) {
            var last: (UInt8, [UInt8]) = (0, [])
            let found = try dsu.padData(seconds: 5) { packet in
                last = (packet[36], Array(packet[40...43]))
                return want(last.0, last.1)
            }
            guard found else {
                throw VMTestFailure(
                    description: "\(what): the last report had buttons \(String(last.0, radix: 2)), sticks \(last.1)")
            }
            return last
        }
        // Centred is 128 or 127 (a DualSense's raw 0x80 is just past the middle of 0–255; hid-nintendo's 0 is it).
        func centred(_ sticks: [UInt8]) -> Bool { sticks.count == 4 && sticks.allSatisfy { (127...128).contains($0) } }
        _ = try report("at rest") { buttons, sticks in buttons == 0 && centred(sticks) }
        moved()
        _ = try report("moved") { buttons, sticks in buttons == 0x20 && sticks == [0, 255, 255, 0] }
        downLeft()
        _ = try report("down-left") { buttons, sticks in buttons == 0xC0 && centred(sticks) }
        say("VMTEST-INFO run --dsu: sticks and the d-pad of the emulated \(model) reach the DSU report")
    }
}

extension RunTests {
    /// `run --dsu` with each emulated model lying flat and turning at once about all three axes,
    /// given physically (far edge rising 30 °/s, turning right 20 °/s, right side going down 10 °/s):
    /// every model's pad packets read the same, as DSU defines them: accelerometer (0, -1, 0) g,
    /// gyroscope pitch +30, yaw +20, roll +10 °/s. (No 0.858 factor for Switch pads: hid-nintendo's
    /// rates are °/s already, and DSU's are °/s.) The client reads floats at the protocol's offsets.
    static func dsuMotionEveryModel() throws {
        let plugs: [(String, () throws -> any MotionControllerEmulator)] = [
            ("DualSense", plugDualSense), ("DualShock 4", { try plugController(DualShock4Emulator()) }),
            ("Switch Pro", { try SwitchControllerTests.plug(.proController).0 }),
            ("Joy-Con (L)", { try SwitchControllerTests.plug(.joyConLeft).0 }),
            ("Joy-Con (R)", { try SwitchControllerTests.plug(.joyConRight).0 })
        ]
        var failures: [String] = []
        for (model, plug) in plugs {
            let controller = try plug()
            defer { try? controller.unplug() }
            // In mouse3d's gamepad frame (x to the triggers, y left, z up): the far edge rising is a
            // turn about -y, turning right about -z, the right side going down about +x.
            controller.stream(
                MotionScript([
                    .init(
                        seconds: 60, degreesPerSecond: SIMD3(10, -30, -20), metersPerSecondSquared: SIMD3(0, 0, 9.80665)
                    )
                ]))
            let dsu = try DSURun(port: 26761, who: model)
            defer { dsu.stop() }
            var motion: [Float]?
            _ = try dsu.padData(seconds: 10) { packet in
                // Accelerometer x, y, z at 76, gyroscope pitch, yaw, roll at 88 (little-endian floats).
                let values = (0..<6).map { i in
                    Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(packet[76 + 4 * i + $1]) << (8 * $1) })
                }
                if abs(values[4] - 20) < 1 { motion = values }  // a sample after the start-up
                return motion != nil
            }
            guard let motion else {
                failures.append("\(model): no pad data with the turn within 10 s")
                continue
            }
            say("VMTEST-INFO run --dsu from \(model): accelerometer \(motion[0..<3]) g, gyroscope \(motion[3..<6]) °/s")
            let want: [Float] = [0, -1, 0, 30, 20, 10]
            if !zip(motion, want).allSatisfy({ abs($0 - $1) <= max(0.01, 0.005 * abs($1)) }) {
                failures.append("\(model): \(motion), want \(want)")
            }
        }
        try expect(failures.isEmpty, "DSU packets: \(failures.joined(separator: "; "))")
    }
}

/// `mouse3d run --print --dsu 127.0.0.1:PORT` and a client asking it for slot 0's pad data, as the
/// DSU tests use them. Stop it when done.
struct DSURun {
    let run: ChildProcess
    let client: UDPSocket
    let server: SocketAddress
    let request = DSUProtocol.request(.padData(slot: 0, mac: nil), clientID: 7)

    /// Starts `run` and waits for its "DSU server at" line; `who` names the controller in failures.
    init(port: Int, who: String) throws {
        run = try ChildProcess(
            executable: mouse3d, arguments: ["run", "--print", "--dsu", "127.0.0.1:\(port)"],
            standardOutputPath: "/dev/null")
        do {
            var said: [String] = []
            while let line = try run.readErrorLine() {
                said.append(line)
                if line.contains("DSU server at") { break }
            }
            try expect(
                said.last?.contains("DSU server at") == true, "\(who): run did not start its DSU server: \(said)")
            client = try UDPSocket(family: AF_INET)
            try client.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
            server = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: 0, passive: false)
        } catch {
            try? run.send(signal: SIGTERM)
            _ = try? run.wait()
            throw error
        }
    }

    /// Asks for pad data and hands each pad-data packet (type 0x100002, 100 bytes) to `take` until it
    /// returns true (then true) or `seconds` pass (then false).
    func padData(seconds: Double, _ take: ([UInt8]) -> Bool) throws -> Bool {
        let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 256)
        while MonotonicClock.nanoseconds() < end {
            _ = try request.withUnsafeBytes { try client.send($0, to: server) }
            _ = try EventLoop.waitUntilReadable([client.descriptor], timeoutNanoseconds: 100_000_000)
            while let (n, _) = try buffer.withUnsafeMutableBytes({ try client.receive(into: $0) }) {
                guard n == 100, buffer[16] == 0x02, buffer[17] == 0x00, buffer[18] == 0x10 else { continue }
                if take(Array(buffer[0..<100])) { return true }
            }
        }
        return false
    }

    /// Ends `run` (SIGTERM) and waits for it.
    func stop() {
        try? run.send(signal: SIGTERM)
        _ = try? run.wait()
    }
}
