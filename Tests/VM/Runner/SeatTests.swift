import CLinux
import Glibc
import Mouse3DLinux
import VMDeviceEmulators

/// The seat test's device parts (Tests/VM/Seat): run as root inside a booted Debian 12 with
/// systemd, logind and the package installed, where user VMTEST_AS_USER ("tester") is logged in on
/// seat0 and user "other" is not. mouse3d runs as that user, never as root, except where root plays
/// the other machine (a sender or receiver in network namespace "s", 10.9.0.1, reached from the
/// user's side at 10.9.0.2).
enum SeatTests {
    /// The user at the seat, when the runner runs in the seat test.
    static let user: String? = getenv("VMTEST_AS_USER").map { String(cString: $0) }
    static let other = "other"
    static let unitEnvironment = ["XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"]

    /// setpriv's arguments that run a command as `user` (her groups, her environment as a login
    /// gives it, and her session's runtime folder and bus, so `systemctl --user` reaches her manager).
    static func asUser(_ user: String) -> [String] {
        let uid = getpwnam(user).map { $0.pointee.pw_uid } ?? 1000
        return [
            "--reuid=\(user)", "--regid=\(user)", "--init-groups", "--reset-env", "/usr/bin/env",
            "XDG_RUNTIME_DIR=/run/user/\(uid)", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/\(uid)/bus"
        ]
    }

    /// mouse3d with `arguments`: as the seat's user in the seat test (setpriv executes it, so
    /// signals reach mouse3d itself), as root in the other VM tests.
    static func mouse3dProcess(_ arguments: [String], standardOutputPath: String? = nil) throws -> ChildProcess {
        guard let user else {
            return try ChildProcess(executable: mouse3d, arguments: arguments, standardOutputPath: standardOutputPath)
        }
        return try ChildProcess(
            executable: "/usr/bin/setpriv", arguments: asUser(user) + [mouse3d] + arguments,
            standardOutputPath: standardOutputPath)
    }

    /// Runs `command` through /bin/sh (as `user`, or root) and returns its status and output
    /// (standard output and error together).
    @discardableResult
    static func shell(_ command: String, as user: String? = nil) throws -> (status: Int32, output: String) {
        let path = "/tmp/seat-shell-\(getpid()).out"
        let arguments = ["-c", "exec 2>&1; " + command]
        let child =
            if let user {
                try ChildProcess(
                    executable: "/usr/bin/setpriv", arguments: asUser(user) + ["/bin/sh"] + arguments,
                    standardOutputPath: path)
            } else {
                try ChildProcess(executable: "/bin/sh", arguments: arguments, standardOutputPath: path)
            }
        _ = try child.readAllErrors()
        let status = try child.wait()
        let output = String(decoding: (try? FileContents.read(path: path)) ?? [], as: UTF8.self)
        return (status, output.trimmingTrailingNewlines)
    }

    /// `shell`, failing the test unless the command succeeds.
    @discardableResult
    static func must(_ command: String, as user: String? = nil) throws -> String {
        let (status, output) = try shell(command, as: user)
        try expect(status == 0, "'\(command)'\(user.map { " as \($0)" } ?? "") exited \(status): \(output)")
        return output
    }

    static func seatUser() throws -> String {
        guard let user else { throw VMTestFailure(description: "VMTEST_AS_USER is not set: run through Tests/VM/Seat") }
        return user
    }

    /// The users `getfacl` names on `node`.
    static func aclUsers(_ node: String) throws -> [String] {
        try shell("getfacl -cp '\(node)'").output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", omittingEmptySubsequences: false)
            return parts.count == 3 && parts[0] == "user" && !parts[1].isEmpty ? String(parts[1]) : nil
        }
    }

    // MARK: the ACLs

    /// Plugged after the session is up: the DualSense's motion node, the sensor hub's IIO nodes and
    /// /dev/uinput carry an ACL for the user at the seat (logind's uaccess), and none for the user
    /// who is not logged in; she can read them.
    static func deviceACLs() throws {
        let user = try seatUser()
        let pad = try plugDualSense()
        defer { try? pad.unplug() }
        let hub = try SensorHubEmulator()
        defer { try? hub.unplug() }
        let udev = try Udev()
        let iio = try waitFor("the sensor hub's IIO devices", seconds: 15) { () -> [String]? in
            let nodes = try MotionSourceEnumerator.iioDevices(udev: udev).compactMap(\.node)
            return nodes.count >= 2 ? nodes : nil
        }
        let motion = try waitFor("the DualSense's motion node") { inputEventNode(named: pad.motionName) }
        for node in ["/dev/uinput", motion] + iio {
            let users = try waitFor("an ACL for \(user) on \(node)", seconds: 10) { () -> [String]? in
                let users = try aclUsers(node)
                return users.contains(user) ? users : nil
            }
            try expect(!users.contains(other), "\(node)'s ACL names \(other), who is not logged in: \(users)")
            try must("test -r '\(node)'", as: user)
            say("VMTEST-INFO \(node): ACL for \(users.joined(separator: ", "))")
        }
        // The emulated pad's other nodes (buttons, touchpad) are not the rule's: no ACL from it.
        let buttons = try waitFor("the DualSense's gamepad node") { inputEventNode(named: pad.name) }
        say("VMTEST-INFO \(buttons) (the pad's buttons): ACL for \(try aclUsers(buttons))")
    }

    /// `mouse3d run --uinput pointer` as the user at the seat, no root, no group.
    static func runPointerFromDualSense() throws {
        _ = try seatUser()
        try RunTests.pointer(from: plugDualSense, rest: 15)
    }

    // MARK: doctor

    /// doctor as the user at the seat, with a controller plugged: every line ok or a note; a
    /// problem's fix is run (as root for a sudo fix) and doctor asked again, which must then say ok.
    static func doctorFixes() throws {
        let user = try seatUser()
        let pad = try plugDualSense()
        defer { try? pad.unplug() }
        func report() throws -> [(name: String, status: String, detail: String, fix: String?)] {
            let json = try shell("\(mouse3d) doctor --json", as: user).output
            return json.split(separator: "\n").map { line in
                func field(_ key: String) -> String? {
                    guard let start = line.firstRange(of: "\"\(key)\":\"") else { return nil }
                    var value = ""
                    var escaped = false
                    for c in line[start.upperBound...] {
                        if escaped {
                            value.append(c)
                            escaped = false
                        } else if c == "\\" {
                            escaped = true
                        } else if c == "\"" {
                            break
                        } else {
                            value.append(c)
                        }
                    }
                    return value.replacing("u0026", with: "&")
                }
                return (field("name") ?? "?", field("status") ?? "?", field("detail") ?? "", field("fix"))
            }
        }
        let first = try report()
        for line in first { say("VMTEST-INFO doctor: \(line.status) \(line.name): \(line.detail)") }
        try expect(first.count >= 8, "doctor printed \(first.count) lines")
        if let expected = getenv("VMTEST_EXPECT_PROBLEM").map({ String(cString: $0) }) {
            let line = first.first { $0.name == expected }
            try expect(
                line?.status == "problem",
                "the state made for it, doctor says \(expected): \(line.map { "\($0)" } ?? "nothing")")
        }
        for line in first where line.status == "problem" {
            if line.name.hasPrefix("receiver '") {
                // A paired receiver that does not answer: its fix is on the other machine ("start
                // mouse3d receive there"): done there, doctor here must then find it.
                say("VMTEST-INFO trying doctor's fix for \(line.name) on the other machine: \(line.fix ?? "")")
                let receiver = try ChildProcess(
                    executable: "/bin/sh",
                    arguments: ["-c", "exec ip netns exec s \(mouse3d) receive --listen 10.9.0.1 2>>\(otherLog)"])
                defer {
                    try? receiver.terminate()
                    _ = try? receiver.wait()
                }
                let again = try waitFor("doctor to reach the receiver started for it", seconds: 20) {
                    try report().first { $0.name == line.name && $0.status == "ok" }
                }
                say("VMTEST-INFO doctor then: \(again.detail)")
                continue
            }
            guard let fix = line.fix, let command = command(in: fix) else {
                throw VMTestFailure(
                    description: "doctor's problem '\(line.name)' has no command to run: \(line.fix ?? "no fix")")
            }
            let asRoot = command.hasPrefix("sudo ")
            say("VMTEST-INFO trying doctor's fix for \(line.name)\(asRoot ? " (as root)" : ""): \(command)")
            try must(command.replacing("sudo ", with: ""), as: asRoot ? nil : user)
            let again = try report().first { $0.name == line.name }
            try expect(
                again?.status == "ok", "after its fix, doctor says \(line.name): \(again.map { "\($0)" } ?? "nothing")")
        }
        for name in ["uinput", "udev rule", "motion source", "systemd units", "avahi"] {
            let line = first.first { $0.name == name }
            try expect(line != nil, "doctor has no '\(name)' line")
        }
        let rule = first.first { $0.name == "udev rule" }
        try expect(
            rule?.detail.contains("the seat rule") == true, "doctor on the rule: \(rule.map { $0.detail } ?? "")")
    }

    /// The command in a fix as doctor words it ("Load it with 'sudo modprobe uinput' (...)", "Install
    /// ...: sudo install ... && sudo udevadm trigger (or ...)"): quoted, or from its first sudo on.
    static func command(in fix: String) -> String? {
        if let open = fix.firstIndex(of: "'"), let close = fix[fix.index(after: open)...].firstIndex(of: "'") {
            let quoted = fix[fix.index(after: open)..<close]
            if quoted.hasPrefix("sudo ") || quoted.hasPrefix("mouse3d ") { return String(quoted) }
        }
        guard let start = fix.firstRange(of: "sudo ")?.lowerBound else { return nil }
        let rest = fix[start...]
        return String(rest[..<(rest.firstRange(of: " (")?.lowerBound ?? rest.endIndex)])
    }

    // MARK: the units

    /// The other machine: network namespace "s" (10.9.0.1), a veth pair to this one (10.9.0.2).
    static func otherMachine() throws {
        if try shell("ip netns list").output.contains("s") { return }
        try must("ip netns add s")
        try must("ip link add seat0net type veth peer name othernet netns s")
        try must("ip addr add 10.9.0.2/24 dev seat0net && ip link set seat0net up")
        try must("ip -n s addr add 10.9.0.1/24 dev othernet && ip -n s link set othernet up && ip -n s link set lo up")
    }

    /// The user's configuration file (what she would write in ~/.config/mouse3d/config.toml).
    static func configure(_ toml: String) throws {
        let user = try seatUser()
        try must("mkdir -p ~/.config/mouse3d && printf '%s' '\(toml)' > ~/.config/mouse3d/config.toml", as: user)
    }

    /// Pairs: `receiver` shows a code, `sender` pairs with `address` using it. Each side is the seat's
    /// user or root in namespace s.
    static func pair(receiverAsUser: Bool, address: String) throws {
        let user = try seatUser()
        let out = "/tmp/seat-pair.out"
        let receiver =
            receiverAsUser
            ? try ChildProcess(
                executable: "/usr/bin/setpriv", arguments: asUser(user) + [mouse3d, "pair", "--timeout", "60"],
                standardOutputPath: out)
            : try ChildProcess(
                executable: "/usr/sbin/ip", arguments: ["netns", "exec", "s", mouse3d, "pair", "--timeout", "60"],
                standardOutputPath: out)
        defer { try? receiver.terminate() }
        let code = try waitFor("a pairing code", seconds: 20) { () -> String? in
            let text = String(decoding: (try? FileContents.read(path: out)) ?? [], as: UTF8.self)
            guard let r = text.firstRange(of: "pairing code: ") else { return nil }
            return String(text[r.upperBound...].prefix(9))
        }
        let command = "\(mouse3d) pair \(address) \(code)"
        let said = receiverAsUser ? try must("ip netns exec s " + command) : try must(command, as: user)
        let errors = try receiver.readAllErrors()
        try expect(try receiver.wait() == 0, "the receiving side of the pairing: \(errors)")
        say("VMTEST-INFO paired: \(said.split(separator: "\n").first ?? "")")
    }

    /// `systemctl --user` as the seat's user.
    @discardableResult
    static func userctl(_ arguments: String) throws -> String {
        try must("systemctl --user \(arguments)", as: try seatUser())
    }

    /// The unit's main process id, once it is active (0 before).
    static func mainPID(_ unit: String) throws -> Int32 {
        let user = try seatUser()
        let active = try shell("systemctl --user is-active \(unit)", as: user).output == "active"
        return active ? Int32(try shell("systemctl --user show -p MainPID --value \(unit)", as: user).output) ?? 0 : 0
    }

    /// The unit's rating by `systemd-analyze security` as it runs, and its journal has no error.
    static func ratedAndQuiet(_ unit: String) throws {
        let rating = try shell("systemd-analyze security --user --no-pager \(unit) | tail -n 1", as: try seatUser())
        say("VMTEST-INFO \(unit) as it runs: \(rating.output)")
        try expect(rating.output.contains("Overall exposure level"), "systemd-analyze security: \(rating.output)")
        let errors = try shell("journalctl -b -q --no-pager _SYSTEMD_USER_UNIT=\(unit) -p err").output
        try expect(errors.isEmpty, "\(unit)'s journal has errors: \(errors)")
        let lines = try shell("journalctl -b -q --no-pager -o cat _SYSTEMD_USER_UNIT=\(unit) | tail -n 4").output
        say("VMTEST-INFO \(unit)'s journal ends: \(lines.replacing("\n", with: " | "))")
    }

    /// Where root's mouse3d in namespace s writes what it says.
    static let otherLog = "/tmp/seat-other-machine.log"

    /// Root's sender in namespace s, streaming the controller to the user's receiver at 10.9.0.2.
    static func otherSender() throws -> ChildProcess {
        try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "exec ip netns exec s \(mouse3d) send --to 10.9.0.2 --source auto 2>>\(otherLog)"])
    }

    /// Runs `body`; when it fails, the failure carries the end of `units`' journals (what the user
    /// would read with journalctl --user -u UNIT).
    static func explained(by units: [String], _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            var text = "\(error)"
            for unit in units {
                let journal = try shell("journalctl -b -q --no-pager -o cat _SYSTEMD_USER_UNIT=\(unit) | tail -n 12")
                    .output
                text += "\n    \(unit)'s journal: " + journal.replacing("\n", with: "\n      ")
            }
            let other = try shell("tail -n 12 \(otherLog)").output
            text += "\n    the other machine (root in namespace s) said: " + other.replacing("\n", with: "\n      ")
            text += try kernelOnDevices()
            throw VMTestFailure(description: text)
        }
    }

    /// What the kernel did with the emulated devices (a driver's probe that fails after making its
    /// input nodes removes them again) and which input devices are there now, as lines to append.
    static func kernelOnDevices() throws -> String {
        let kernel = try shell(
            "dmesg | grep -i -e playstation -e uhid -e 'input:' -e 'power_supply' -e ' hid' | tail -n 16"
        ).output
        let present = try shell(
            "for d in /sys/class/input/event*; do printf '%s: %s; ' \"${d##*/}\" \"$(cat \"$d/device/name\")\"; done"
        ).output
        return "\n    the kernel said: " + kernel.replacing("\n", with: "\n      ") + "\n    input devices now: "
            + present
    }

    /// The 90° turn (rest, left about the vertical, pause, back) streamed by `controller`, read back
    /// from the virtual pointer: the counts moved at rest, in the turn and on the way back. Each
    /// window ends in a still stretch where the emulator holds (``ScriptGate``) until everything
    /// before it came out and the pointer stood still (``pointerMoves``), as `run`'s VM pointer
    /// tests do: windows closed by the test's clock took part of the turn into the way back when the
    /// VM ran seconds late (a --busy run: 1191 and then -185).
    static func turn(
        _ controller: any MotionControllerEmulator, rest: Double, pointer named: String = "mouse3d pointer"
    )
        throws -> (atRest: Int32, turned: (x: Int32, y: Int32), back: Int32)
    {
        let level = SIMD3(0.0, 0.0, 9.80665)
        let started = MonotonicClock.nanoseconds()
        let ends = [rest - 0.5, rest + 2.5, rest + 6]
        let gates = ScriptGate(at: ends)
        controller.stream(
            MotionScript([
                .init(seconds: rest, degreesPerSecond: .zero, metersPerSecondSquared: level),
                .init(seconds: 2, degreesPerSecond: SIMD3(0, 0, 45), metersPerSecondSquared: level),
                .init(seconds: 1, degreesPerSecond: .zero, metersPerSecondSquared: level),
                .init(seconds: 2, degreesPerSecond: SIMD3(0, 0, -45), metersPerSecondSquared: level),
                .init(seconds: 30, degreesPerSecond: .zero, metersPerSecondSquared: level)
            ]), gate: gates)
        let device = try EvdevDevice(path: try OutputTests.node(named: named))
        let opened = Double(MonotonicClock.nanoseconds() - started) * 1e-9
        try expect(opened < rest - 3, "the virtual pointer appeared \(opened) s into the \(rest) s rest")
        func moved(until scriptSeconds: Double) -> (x: Int32, y: Int32) {
            pointerMoves(device, through: scriptSeconds, gates: gates, sent: { controller.scriptSecondsSent })
        }
        let atRest = moved(until: ends[0])
        let turned = moved(until: ends[1])
        let back = moved(until: ends[2])
        say(
            "VMTEST-INFO \(named): at rest \(atRest), 90° left \(turned), back \(back) (appeared after \(opened) s; the emulator held \(Int(gates.secondsHeld * 1000)) ms at the windows' ends)"
        )
        return (atRest.x + atRest.y, turned, back.x)
    }

    /// How many times the receive unit has said since boot that a sender was lost (500 ms without
    /// a frame).
    static func receiverLosses() throws -> Int {
        Int(
            try shell(
                "journalctl -b -q --no-pager -o cat _SYSTEMD_USER_UNIT=mouse3d-receive.service | grep -c 'lost (no frames'"
            ).output) ?? 0
    }

    /// How many times the other machine's sender has said its motion samples stopped for longer
    /// than its fusion bridges (0.25 s: the motion meanwhile was not seen).
    static func senderGaps() throws -> Int {
        Int(try shell("grep -c 'motion samples stopped' \(otherLog) || true").output) ?? 0
    }

    /// ``turn(_:rest:pointer:)`` through the receive unit: when the turn misses 1800 ± `tolerance`
    /// and the receiver said meanwhile that the sender was lost (the machine stalled for 500 ms or
    /// more), or the sender that its samples stopped (it was not scheduled for 0.25 s or more: after
    /// the reboot, a turn came out as -1371 with neither this VM's stall nor a loss seen), part of
    /// the turn went by unseen, by design: the figure says nothing about the pointer. It is said,
    /// and the turn is done again (three attempts). A miss with none of these stands.
    static func receivedTurn(_ pad: any MotionControllerEmulator, rest: Double, tolerance: Double) throws -> (
        atRest: Int32, turned: (x: Int32, y: Int32), back: Int32
    ) {
        var attempt = 1
        while true {
            let lostBefore = try receiverLosses()
            let gapsBefore = try senderGaps()
            let probe = StallProbe()
            let moved = try turn(pad, rest: rest)
            let stalled = probe.stop()
            let lost = try receiverLosses() - lostBefore
            let gaps = try senderGaps() - gapsBefore
            // A stall past the 0.25 s the fusion bridges (the sender's reports then come after a
            // gap it clamps, or overflow evdev's buffer in a burst) loses motion on the sender.
            if abs(Double(-moved.turned.x) - 1800) <= tolerance || (lost == 0 && gaps == 0 && stalled < 250)
                || attempt == 3
            {
                return moved
            }
            say(
                "VMTEST-INFO during the turn (\(moved.turned.x)) the receiver lost the sender \(lost) time(s), the sender's samples stopped \(gaps) time(s) and this VM stalled up to \(Int(stalled)) ms: a stall of 250 ms or more on this machine makes the figure meaningless; again (attempt \(attempt + 1) of 3)"
            )
            attempt += 1
        }
    }

    /// ``turn(_:rest:pointer:)`` through `run`'s unit: when the turn misses what ``expectTurn(_:)``
    /// promises while this VM stalled 250 ms or more (motion through such a gap is clamped by the
    /// fusion, by design), it is said and turned again (three attempts); a miss with no stall stands.
    static func runTurn(_ pad: any MotionControllerEmulator, rest: Double) throws -> (
        atRest: Int32, turned: (x: Int32, y: Int32), back: Int32
    ) {
        var attempt = 1
        while true {
            let probe = StallProbe()
            let moved = try turn(pad, rest: rest)
            let stalled = probe.stop()
            let kept = moved.atRest == 0 && abs(Double(-moved.turned.x) - 1800) <= 10
            if kept || stalled < 250 || attempt == 3 { return moved }
            say(
                "VMTEST-INFO during the turn (\(moved.turned.x), \(moved.atRest) at rest) this VM stalled up to \(Int(stalled)) ms: again (attempt \(attempt + 1) of 3)"
            )
            attempt += 1
        }
    }

    /// The turn as `run`'s pointer tests promise it: nothing at rest, 1800 ± 10 counts to the left.
    static func expectTurn(_ moved: (atRest: Int32, turned: (x: Int32, y: Int32), back: Int32)) throws {
        try expect(moved.atRest == 0, "the pointer moved at rest: \(moved.atRest)")
        try expect(abs(Double(-moved.turned.x) - 1800) <= 10, "a 90° turn moved \(moved.turned.x), 1800 ± 10 promised")
    }

    /// `systemctl --user stop UNIT` removes the unit's virtual pointer.
    static func stopRemovesPointer(_ unit: String) throws {
        try userctl("stop \(unit)")
        try pointerGone(seconds: 10)
    }

    /// Waits until no virtual pointer of mouse3d's is there.
    static func pointerGone(seconds: Double) throws {
        _ = try waitFor("the virtual pointer gone", seconds: seconds) {
            inputEventNode(named: "mouse3d pointer") == nil ? true : nil
        }
    }

    /// The seat's user enables the receive unit; root in namespace s, paired with it while it runs,
    /// streams the emulated DualSense's turn: the unit's virtual pointer moves 1800 ± 10; stopping
    /// the unit removes the device and ends the process.
    static func receiveUnit() throws {
        try explained(by: ["mouse3d-receive.service"]) {
            try otherMachine()
            try configure("[receive]\noutput = \"pointer\"\n")
            try userctl("enable --now mouse3d-receive.service")
            let pid = try waitFor("mouse3d-receive active", seconds: 20) {
                try mainPID("mouse3d-receive.service").nonZero
            }
            try pair(receiverAsUser: true, address: "10.9.0.2")
            let pad = try plugDualSense()
            defer { try? pad.unplug() }
            let sender = try otherSender()
            defer {
                try? sender.terminate()
                _ = try? sender.wait()
            }
            let moved = try receivedTurn(pad, rest: 10, tolerance: 10)
            try expectTurn(moved)
            try ratedAndQuiet("mouse3d-receive.service")
            try sender.terminate()
            _ = try sender.wait()
            try stopRemovesPointer("mouse3d-receive.service")
            try expect(kill(pid, 0) != 0, "the receiver (pid \(pid)) still runs after systemctl --user stop")
        }
    }

    /// Attempts of the send unit's turn. Five, not three: a clean CI run (session 39) had the
    /// DualSense emulator starved past its 2 s catch-up in each of three attempts (the send unit
    /// said "samples stopped for 2.01 s", the emulator's skip ahead), the seat VM beside the device VM.
    static let sendUnitAttempts = 5

    /// The seat's user pairs with a receiver at 10.9.0.1 (root in namespace s), names it in her
    /// configuration and starts the send unit: her DualSense's turn arrives there.
    static func sendUnit() throws {
        try explained(by: ["mouse3d-send.service"]) {
            try otherMachine()
            let out = "/tmp/seat-receiver.jsonl"
            try pair(receiverAsUser: false, address: "10.9.0.1")
            let receiver = try ChildProcess(
                executable: "/bin/sh",
                arguments: [
                    "-c",
                    "exec ip netns exec s \(mouse3d) receive --listen 10.9.0.1 --print --format jsonl 2>>\(otherLog)"
                ],
                standardOutputPath: out)
            defer {
                try? receiver.terminate()
                _ = try? receiver.wait()
            }
            try configure("[receive]\noutput = \"pointer\"\n\n[send]\nto = [\"10.9.0.1\"]\n")
            var pad = try plugDualSense()
            defer { try? pad.unplug() }
            let level = SIMD3(0.0, 0.0, 9.80665)
            let script = MotionScript([
                .init(seconds: 8, degreesPerSecond: .zero, metersPerSecondSquared: level),
                .init(seconds: 2, degreesPerSecond: SIMD3(0, 0, 45), metersPerSecondSquared: level),
                .init(seconds: 30, degreesPerSecond: .zero, metersPerSecondSquared: level)
            ])
            pad.stream(script)
            try userctl("start mouse3d-send.service")
            let pid = try waitFor("mouse3d-send active", seconds: 20) { try mainPID("mouse3d-send.service").nonZero }
            /// Each printed frame's yaw, in degrees.
            func yaws() -> [Double] {
                let text = String(decoding: (try? FileContents.read(path: out)) ?? [], as: UTF8.self)
                return text.split(separator: "\n").compactMap { line in
                    guard let r = line.firstRange(of: "\"yaw\":") else { return nil }
                    // Radians, as the frame carries them (Swift's shortest form: may have an exponent).
                    let text = line[r.upperBound...].prefix { "-+.e".contains($0) || $0.isNumber }
                    return Double(text).map { $0 * 180 / Double.pi }
                }
            }
            // The turn has arrived once the yaw went past 80° and has stood still since (its last
            // 100 frames, 0.4 s at 250 Hz, within 0.05°): read before that, the turn is half done.
            // A turn that never arrives whole while this VM stalled 250 ms or more, or while the
            // receiver said the stream was lost (no frames for 500 ms on a link inside this VM: a
            // starved sender, whose fusion clamps such a gap, by design; a --busy run lost it so with
            // no stall this test's own thread saw), is turned again (three attempts); without
            // either the miss stands.
            /// How many times the receiver has said a stream was lost, so far.
            func receiverLosses() -> Int {
                let said = String(decoding: (try? FileContents.read(path: otherLog)) ?? [], as: UTF8.self)
                return said.ranges(of: "lost (no frames").count
            }
            /// How many of the send unit's journal lines this boot hold any of `phrases`.
            func unitSaid(_ phrases: String...) throws -> Int {
                let patterns = phrases.map { "-e '\($0)'" }.joined(separator: " ")
                return Int(
                    try shell(
                        "journalctl -b -q --no-pager -o cat _SYSTEMD_USER_UNIT=mouse3d-send.service | grep -c \(patterns) || true"
                    ).output) ?? 0
            }
            /// How many times the send unit has said its motion samples stopped for longer than its
            /// fusion bridges (0.25 s): the motion meanwhile was not seen (a clean CI run saw 1.5 and
            /// 2 s with no stall of this test's own and no loss said, and the turn never came whole).
            func senderGaps() throws -> Int { try unitSaid("motion samples stopped") }
            /// How many times the send unit has said its pad went away (the test unplugs none: a
            /// clean CI run saw the pad's motion node go within a second of the unit opening it,
            /// and never come back, about one run in six; the kernel's lines are said when it does).
            func padLosses() throws -> Int { try unitSaid("went away", "was unplugged") }
            var span: Double?
            var attempt = 1
            while true {
                let from = yaws().count
                let lostBefore = receiverLosses()
                let gapsBefore = try senderGaps()
                let padLossesBefore = try padLosses()
                let probe = StallProbe()
                span = try? waitFor("the whole turn at the receiver", seconds: 40) { () -> Double? in
                    let y = Array(yaws().dropFirst(from))
                    guard let low = y.min(), let high = y.max(), high - low > 80, y.count > 100 else { return nil }
                    let last = y.suffix(100)
                    guard let a = last.min(), let b = last.max(), b - a < 0.05 else { return nil }
                    return high - low
                }
                let stalled = probe.stop()
                let lost = receiverLosses() - lostBefore
                let gaps = try senderGaps() - gapsBefore
                let vanished = try padLosses() - padLossesBefore
                if span.map({ abs($0 - 90) < 3 }) == true
                    || (stalled < 250 && lost == 0 && gaps == 0 && vanished == 0)
                    || attempt == Self.sendUnitAttempts
                {
                    break
                }
                say(
                    "VMTEST-INFO the turn arrived as \(span.map { "\($0)°" } ?? "no whole turn") while this VM stalled up to \(Int(stalled)) ms, the receiver lost the stream \(lost) time(s), the sender's samples stopped \(gaps) time(s) and the unit said its pad went away \(vanished) time(s): again (attempt \(attempt + 1) of \(Self.sendUnitAttempts))"
                )
                attempt += 1
                if vanished > 0 {
                    // Not unplugged by this test: what the kernel said, then a pad plugged anew,
                    // which the unit must take up by itself ("back; resuming").
                    say("VMTEST-INFO the pad went away unasked:\(try kernelOnDevices())")
                    try? pad.unplug()
                    pad = try plugDualSense()
                }
                pad.stream(script)
            }
            guard let whole = span else {
                throw VMTestFailure(
                    description:
                        "timed out waiting for the whole turn at the receiver (40 s each of \(attempt) attempt(s))")
            }
            say("VMTEST-INFO the receiver in namespace s printed \(yaws().count) frames; yaw spans \(whole)°")
            try expect(abs(whole - 90) < 3, "the 90° turn arrived as \(whole)°")
            try ratedAndQuiet("mouse3d-send.service")
            try userctl("stop mouse3d-send.service")
            _ = try waitFor("the sender gone", seconds: 10) { kill(pid, 0) != 0 ? true : nil }
        }
    }

    /// The run unit with the DualSense: the pointer follows its turn; stopping removes it.
    static func runUnit() throws {
        try explained(by: ["mouse3d-run.service"]) {
            let pad = try plugDualSense()
            defer { try? pad.unplug() }
            try userctl("start mouse3d-run.service")
            let pid = try waitFor("mouse3d-run active", seconds: 20) { try mainPID("mouse3d-run.service").nonZero }
            let moved = try runTurn(pad, rest: 10)
            try expectTurn(moved)
            try ratedAndQuiet("mouse3d-run.service")
            try stopRemovesPointer("mouse3d-run.service")
            try expect(kill(pid, 0) != 0, "mouse3d run (pid \(pid)) still runs after systemctl --user stop")
        }
    }

    // MARK: after the reboot

    /// After the reboot the enabled receive unit runs by itself and its pairing holds: root's sender
    /// moves the pointer without pairing again (the turn's 1800 counts within 1%: here the figure
    /// shows a session accepted; `run`'s own precision is the other tests' ±10). Its datagrams are captured; the unit's process is
    /// killed (SIGKILL) and systemd restarts it; the captured datagrams sent again from the sender's
    /// address and port are refused (nothing moves, the journal names the refusal), and a fresh
    /// session of the same sender is accepted.
    static func receiveAfterReboot() throws {
        try explained(by: ["mouse3d-receive.service"]) {
            try otherMachine()
            let capture = try UDPCapture(port: 24930)
            let pad = try plugDualSense()
            defer { try? pad.unplug() }
            var sender = try otherSender()
            let moved = try receivedTurn(pad, rest: 10, tolerance: 18)
            try expect(abs(Double(-moved.turned.x) - 1800) <= 18, "after the reboot a 90° turn moved \(moved.turned.x)")
            try sender.terminate()
            _ = try sender.wait()
            let session = capture.datagrams()
            say(
                "VMTEST-INFO captured \(session.count) datagrams of the session (from port \(session.first?.sourcePort ?? 0))"
            )
            try expect(session.count > 500, "captured \(session.count) datagrams")
            try pointerGone(seconds: 15)  // the stream ended

            let before = try mainPID("mouse3d-receive.service")
            try userctl("kill --signal=SIGKILL mouse3d-receive.service")
            let after = try waitFor("mouse3d-receive restarted after SIGKILL", seconds: 20) { () -> Int32? in
                let pid = try mainPID("mouse3d-receive.service")
                return pid != 0 && pid != before ? pid : nil
            }
            _ = try waitFor("the restarted receiver listening", seconds: 20) { () -> Bool? in
                try shell("journalctl -b -q --no-pager -o cat _PID=\(after)").output.contains("listening on")
                    ? true : nil
            }
            try replay(session)
            // Refused as it arrives: the journal says so, and no virtual pointer was made or moved.
            let refusal = try waitFor("the restarted receiver's refusal in its journal", seconds: 15) { () -> String? in
                let journal = try shell("journalctl -b -q --no-pager -o cat _PID=\(after)").output
                return journal.split(separator: "\n").first { $0.contains("refused") }.map(String.init)
            }
            say("VMTEST-INFO replayed \(session.count) datagrams after SIGKILL and restart: \(refusal)")
            try expect(
                inputEventNode(named: "mouse3d pointer") == nil,
                "the replay made the restarted receiver create its pointer")

            sender = try otherSender()
            defer {
                try? sender.terminate()
                _ = try? sender.wait()
            }
            let fresh = try receivedTurn(pad, rest: 10, tolerance: 18)
            try expect(
                abs(Double(-fresh.turned.x) - 1800) <= 18, "a fresh session after the replay moved \(fresh.turned.x)")
        }
    }

    /// Sends `datagrams` again from their source address and port, inside namespace s.
    static func replay(_ datagrams: [UDPCapture.Datagram]) throws {
        guard let first = datagrams.first else { return }
        let home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        let other = open("/run/netns/s", O_RDONLY | O_CLOEXEC)
        defer {
            close(home)
            close(other)
        }
        try expect(home >= 0 && other >= 0 && setns(other, CLONE_NEWNET) == 0, "entering namespace s: errno \(errno)")
        let socketFD = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try expect(setns(home, CLONE_NEWNET) == 0, "leaving namespace s: errno \(errno)")
        try expect(socketFD >= 0, "socket in namespace s: errno \(errno)")
        defer { close(socketFD) }
        var reuse: Int32 = 1
        setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_port = first.sourcePort.bigEndian
        local.sin_addr.s_addr = inet_addr("10.9.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try expect(bound == 0, "bind 10.9.0.1:\(first.sourcePort) in namespace s: errno \(errno)")
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = UInt16(24930).bigEndian
        target.sin_addr.s_addr = inet_addr("10.9.0.2")
        for (i, d) in datagrams.enumerated() {
            _ = d.payload.withUnsafeBytes { bytes in
                withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(
                            socketFD, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            if i % 64 == 63 { MonotonicClock.sleep(nanoseconds: 2_000_000) }  // pacing: within the socket buffer
        }
    }
}

/// Copies of the UDP datagrams that arrive for one port (a raw socket: root), kept in the kernel's
/// buffer until read.
final class UDPCapture {
    struct Datagram {
        var sourcePort: UInt16
        var payload: [UInt8]
    }
    let descriptor: Int32
    let port: UInt16

    init(port: UInt16) throws {
        self.port = port
        descriptor = socket(AF_INET, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(IPPROTO_UDP))
        try expect(descriptor >= 0, "raw socket: errno \(errno)")
        var size: Int32 = 64 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    deinit { close(descriptor) }

    /// Everything that arrived so far for the port.
    func datagrams() -> [Datagram] {
        var found: [Datagram] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 { break }
            let header = Int(buffer[0] & 0x0f) * 4
            guard n >= header + 8 else { continue }
            let source = UInt16(buffer[header]) << 8 | UInt16(buffer[header + 1])
            let destination = UInt16(buffer[header + 2]) << 8 | UInt16(buffer[header + 3])
            if destination == port {
                found.append(Datagram(sourcePort: source, payload: Array(buffer[(header + 8)..<n])))
            }
        }
        return found
    }
}

extension Int32 {
    /// Self, unless zero.
    var nonZero: Int32? { self == 0 ? nil : self }
}

extension String {
    var trimmingTrailingNewlines: String {
        var s = self
        while s.last == "\n" { s.removeLast() }
        return s
    }
}
