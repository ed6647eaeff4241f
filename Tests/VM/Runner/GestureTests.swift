import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import VMDeviceEmulators

enum GestureTests {
    /// `send` with an emulated DualSense and a configuration whose DualSense profile (matched by
    /// vendor:product) sets clutch BTN_TL and recenter BTN_SOUTH: the profile is named at start, the
    /// clutch bit follows L1; cross and SIGUSR1 make the current attitude zero.
    static func clutchAndRecenter() throws {
        var sender: ChildProcess?
        do {
            try clutchAndRecenter(sender: &sender)
        } catch {
            try? sender?.send(signal: SIGTERM)
            let said = (try? sender?.readAllErrors()) ?? ""
            throw VMTestFailure(
                description: "\(error); the sender said: \(said.split(separator: "\n").joined(separator: " | "))")
        }
    }

    static func clutchAndRecenter(sender senderOut: inout ChildProcess?) throws {
        let receiver = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .datagram)
        let controller = try plugDualSense()
        defer { try? controller.unplug() }
        // Level, turning about the vertical (the controller's z) at 40 °/s.
        controller.startStreaming(
            MotionScript([
                .init(seconds: 1, degreesPerSecond: SIMD3(0, 0, 40), metersPerSecondSquared: SIMD3(0, 0, 9.80665))
            ]), hertz: 250)
        // The buttons come from a DualSense profile in the user's configuration, matched by id.
        let home = "/tmp/gesture-home"
        try SecretFile.makeDirectory(home + "/mouse3d")
        try SecretFile.write(
            path: home + "/mouse3d/config.toml",
            bytes: Array(
                """
                [send]
                clutch = "BTN_WEST"

                [[profile]]
                name = "DualSense"
                match_id = "054c:0ce6"
                [profile.send]
                clutch = "BTN_TL"
                recenter = "BTN_SOUTH"
                """.utf8))
        let previous = FileSystem.environment("XDG_CONFIG_HOME")
        FileSystem.setEnvironment("XDG_CONFIG_HOME", home)
        defer { FileSystem.setEnvironment("XDG_CONFIG_HOME", previous) }
        let sender = try ChildProcess(
            executable: mouse3d, arguments: ["send", "--insecure", "--to", "\(receiver.localAddress)"])
        senderOut = sender
        defer { try? sender.send(signal: SIGTERM) }
        func frames(for seconds: Double) throws -> [AttitudeUpdate] {
            var got: [AttitudeUpdate] = []
            let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
            while MonotonicClock.nanoseconds() < end {
                try EventLoop.waitUntilReadable([receiver.descriptor], timeoutNanoseconds: 10_000_000)
                try receiver.drain { if case .frame(let f) = $0 { got.append(f) } }
            }
            return got
        }
        // A debug build's start-up (argument parsing) takes seconds under TCG.
        _ = try waitFor("frames from the sender", seconds: 20) { try frames(for: 0.1).isEmpty ? nil : true }
        try expect(try frames(for: 0.3).allSatisfy { !$0.buttons.contains(.clutch) }, "clutch bit set while L1 is up")
        /// The first frame that `wanted`, read as they come (`seconds` only bounds a failure), and
        /// every frame read up to it.
        func frames(until wanted: (AttitudeUpdate) -> Bool, seconds: Double = 30) throws -> [AttitudeUpdate] {
            var got: [AttitudeUpdate] = []
            let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
            while !got.contains(where: wanted) && MonotonicClock.nanoseconds() < end { got += try frames(for: 0.05) }
            return got
        }
        /// The clutch bit must take `expected` (waited for) and keep it from then on (0.5 s more read).
        func expectClutch(_ expected: Bool, _ what: String) throws {
            let seen = (try frames(until: { $0.buttons.contains(.clutch) == expected }) + frames(for: 0.5)).map {
                $0.buttons.contains(.clutch)
            }
            guard let switched = seen.firstIndex(of: expected) else {
                throw VMTestFailure(
                    description: "\(what): the clutch bit never became \(expected) (\(seen.count) frames)")
            }
            try expect(seen[switched...].allSatisfy { $0 == expected }, "\(what): the clutch bit flickered: \(seen)")
        }
        controller.hold([.l1])
        try expectClutch(true, "L1 held")
        controller.hold([])
        try expectClutch(false, "L1 released")

        func yawDegrees(_ f: AttitudeUpdate) -> Double { Double(f.frame.yaw) * 180 / .pi }
        let before = try frames(until: { abs(yawDegrees($0)) > 20 })
        try expect(
            before.contains { abs(yawDegrees($0)) > 20 },
            "the attitude turned before recentering (yaw \(before.last.map(yawDegrees) ?? .nan)°)")
        controller.hold([.cross])
        var recentred: AttitudeUpdate?
        let pressEnd = MonotonicClock.nanoseconds() + 2_000_000_000
        while recentred == nil && MonotonicClock.nanoseconds() < pressEnd {
            recentred = try frames(for: 0.05).first { $0.buttons.contains(.recenter) }
        }
        controller.hold([])
        guard let firstRecentred = recentred else {
            throw VMTestFailure(description: "no frame carried the recenter bit within 2 s of pressing cross")
        }
        // At 40 °/s the attitude moves 0.16° per 4 ms report: right after recentering it is near zero.
        try expect(abs(yawDegrees(firstRecentred)) < 2, "yaw right after recentering: \(yawDegrees(firstRecentred))°")
        // SIGUSR1 recentres too. This script holds the pad with its gamepad-frame x axis upright
        // (pitch near 90° before any recentre, where yaw and roll share the turn): after a recentre
        // the turn about the vertical shows as roll. So the distance from zero is the largest of the
        // three angles. Once the turn has carried it 20° to 140° away, the signal; the first frame
        // near zero after it must follow one far from zero, a jump no turn makes between two frames
        // (40 °/s is 0.16° a report), so the attitude passing zero by itself cannot stand in for the
        // recentre. (It did for a session: an 800 ms sleep, then any frame with |yaw| < 3°, which
        // every frame after the cross had.)
        func fromZero(_ f: AttitudeUpdate) -> Double {
            Double(max(abs(f.frame.roll), abs(f.frame.pitch), abs(f.frame.yaw))) * 180 / .pi
        }
        let away = try frames(until: { (20...140).contains(fromZero($0)) })
        guard away.contains(where: { (20...140).contains(fromZero($0)) }), let last = away.last else {
            throw VMTestFailure(
                description:
                    "the attitude did not turn 20° away again after cross (\(away.last.map(fromZero) ?? .nan)° from zero)"
            )
        }
        try sender.send(signal: SIGUSR1)
        let afterSignal = try frames(until: { fromZero($0) < 3 })
        guard let near = afterSignal.firstIndex(where: { fromZero($0) < 3 }) else {
            let smallest = afterSignal.map(fromZero).min() ?? .infinity
            throw VMTestFailure(
                description: "SIGUSR1 did not recentre: the nearest to zero afterwards was \(smallest)°")
        }
        let lastFar = near > 0 ? afterSignal[near - 1] : last
        try expect(
            fromZero(lastFar) > 15,
            "SIGUSR1 recentred: the attitude came to \(fromZero(afterSignal[near]))° from zero from \(fromZero(lastFar))° in one frame, a jump only a recentre makes"
        )
        try sender.send(signal: SIGTERM)
        let said = try sender.readAllErrors()
        try expect(
            said.contains(
                "profile 'DualSense' (\(home)/mouse3d/config.toml:4) for '\(DualSenseTests.motionName)', matched by id 054c:0ce6"
            ),
            "the sender names the profile in use: \(said.split(separator: "\n").prefix(4).joined(separator: " | "))")
    }
}
