import Foundation
import Mouse3DCore
import Testing

@Suite("mouse3d run: source, fusion and outputs in one process")
struct RunTests {
    /// An empty home and configuration directory, and the environment that points a child at them.
    func emptyHome() throws -> (home: String, environment: [String: String]) {
        let home = Mouse3DProcess.makeConfigHome()
        return (home, ["HOME": home])
    }

    func contents(_ directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String]) ?? []
    }

    @Test(
        "With an empty home: one printed frame per sample, equal to replay's attitude, the same jsonl objects as receive; nothing written"
    )
    func printsEverySample() throws {
        let (home, environment) = try emptyHome()
        let run = try runMouse3D(
            ["run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "max", "--format", "jsonl"],
            configHome: home,
            environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        let streaming = StreamingTests()
        let expected = try streaming.replayFrames()
        let printed = try streaming.receivedFrames(run.output)
        #expect(printed.count == expected.count && expected.count == 1201)
        #expect(printed.map(\.seq) == Array(0..<expected.count))
        #expect(
            zip(printed.map(\.frame), expected).allSatisfy {
                $0.roll.bitPattern == $1.roll.bitPattern && $0.pitch.bitPattern == $1.pitch.bitPattern
                    && $0.yaw.bitPattern == $1.yaw.bitPattern
            }, "run's attitude is replay's, bit for bit")
        let keys = try #require(run.output.split(separator: "\n").first).split(separator: ",").map {
            $0.split(separator: ":")[0]
        }
        #expect(
            keys == [
                "{\"sender\"", "\"stream\"", "\"seq\"", "\"time\"", "\"roll\"", "\"pitch\"", "\"yaw\"", "\"buttons\""
            ])
        #expect(contents(home).isEmpty, "run wrote \(contents(home))")
    }

    @Test("--rate 100 prints 100 frames a second; no socket is opened")
    func rate() throws {
        let (home, environment) = try emptyHome()
        let started = Date()
        let run = try Mouse3DProcess(
            [
                "run", "--source", "replay:\(Mouse3DProcess.sampleLog)", "--speed", "4", "--rate", "100", "--format",
                "jsonl"
            ], configHome: home,
            environment: environment)
        #expect(run.waitForOutputLines(atLeast: 1) >= 1, "it runs: \(run.errors)")
        let descriptors =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(run.process.processIdentifier)/fd")) ?? []
        // Foundation's Process hands every child a socket of its own (seen in /bin/sleep started the
        // same way): the control. mouse3d run must not have more.
        func sockets(_ pid: Int32) -> [String] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return entries.compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
            }.filter { $0.hasPrefix("socket:") }
        }
        let control = Process()
        control.executableURL = URL(fileURLWithPath: "/bin/sleep")
        control.arguments = ["60"]  // lives until counted and killed (a busy machine may take a while)
        control.standardOutput = Pipe()
        control.standardError = Pipe()
        try control.run()
        // Counted once the child is /bin/sleep (exec done), not after a guess at how long that takes.
        let execed = Date().addingTimeInterval(10)
        while Date() < execed,
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(control.processIdentifier)/exe"))?
                .hasSuffix("sleep") != true
        {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let expected = sockets(control.processIdentifier).count
        control.terminate()
        control.waitUntilExit()
        let opened = sockets(run.process.processIdentifier)
        #expect(!descriptors.isEmpty, "could not look at the process's descriptors")
        #expect(
            opened.count <= expected, "run opened sockets: \(opened) (a child started the same way has \(expected))")
        #expect(run.waitForExit(seconds: 20) == 0, "\(run.errors)")
        let seconds = Date().timeIntervalSince(started)
        let times = run.output.split(separator: "\n").compactMap { line -> Double? in
            guard let r = line.range(of: "\"time\":") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 != "," })
        }
        let span = try #require(times.last) - (try #require(times.first))
        let rate = Double(times.count - 1) / span
        print(
            "run --rate 100: \(times.count) frames over \(String(format: "%.2f", span)) s (\(String(format: "%.1f", rate))/s); run took \(String(format: "%.2f", seconds)) s"
        )
        // The pace, from the median gap (a stall of a busy machine restarts the schedule and loses
        // ticks for good, moving the mean but not the median), and never faster than asked.
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        let median = gaps[gaps.count / 2]
        #expect(abs(median - 0.010) <= 0.001, "median gap \(median * 1000) ms")
        #expect(rate <= 103 && rate >= 80, "\(rate) frames/s")
        #expect(contents(home).isEmpty)
    }

    @Test("Bad input says what to do: an unknown source, a log that does not parse")
    func errors() throws {
        let (home, environment) = try emptyHome()
        let missing = try runMouse3D(
            ["run", "--source", "replay:/nonexistent.csv"], configHome: home, environment: environment)
        #expect(missing.status != 0 && missing.errors.contains("cannot read the motion log"), "\(missing.errors)")
        let bad = try runMouse3D(["run", "--source", "bogus"], configHome: home, environment: environment)
        #expect(
            bad.status != 0 && bad.errors.contains("'bogus' is invalid for '--source")
                && bad.errors.contains("auto (the best sensor found), evdev:"),
            "\(bad.errors)")
    }
}
