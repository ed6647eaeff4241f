import Foundation
import Testing

@Suite("bench --plot: PNG pictures drawn by gnuplot, with the data beside them", .serialized)
struct PlotTests {
    /// Width and height from a PNG's IHDR, or nil if it is not a PNG.
    static func pngSize(_ path: String) -> (Int, Int)? {
        guard let d = FileManager.default.contents(atPath: path), d.count > 24,
            Array(d.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            String(decoding: d[12..<16], as: UTF8.self) == "IHDR"
        else { return nil }
        let be = { (o: Int) in d[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    static func rows(_ path: String) -> [[Double]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    }

    @Test("bench accuracy --plot: one picture per trial whose data is the error the table scores")
    func accuracy() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let logs = home + "/logs"
        let plots = home + "/plots/new"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Mouse3DProcess.sampleLog, toPath: logs + "/sample.csv")
        let r = try runMouse3D(
            ["bench", "accuracy", logs, "--python", "none", "--plot", plots], configHome: home,
            environment: ["HOME": home])
        #expect(r.status == 0, "\(r.errors)")
        let size = Self.pngSize(plots + "/sample.png")
        #expect(size.map { $0 == (1200, 500) } == true, "not a 1200×500 PNG: \(String(describing: size))")
        let data = Self.rows(plots + "/sample.csv")
        #expect(data.count > 1000 && data.allSatisfy { $0.count == 3 }, "\(data.count) rows")
        // The plotted inclination errors are the ones the table's RMS is made of.
        let rms = (data.reduce(0) { $0 + $1[1] * $1[1] } / Double(max(1, data.count))).squareRoot()
        let printed = r.output.split(separator: "\n").first { $0.hasPrefix("sample") }.flatMap {
            Double($0.split(separator: " ")[1])
        }
        let table = try #require(printed, "\(r.output)")
        #expect(abs(rms - table) < 0.002 + table * 0.01, "plotted RMS \(rms) against the table's \(table)")
        #expect(zip(data, data.dropFirst()).allSatisfy { $0[0] < $1[0] }, "time goes forward")
    }

    @Test("bench gyro-mouse --plot: the pointer's drift at rest, flat with bias estimation and growing without")
    func gyroMouse() throws {
        let home = Mouse3DProcess.makeConfigHome()
        // Ten minutes of simulated rest, twice: CPU-bound for seconds.
        let r = try CPUHeavy.run {
            try runMouse3D(
                ["bench", "gyro-mouse", "--plot", home + "/p"], configHome: home, environment: ["HOME": home])
        }
        #expect(r.status == 0, "\(r.errors)")
        #expect(Self.pngSize(home + "/p/gyro-mouse-rest-drift.png").map { $0 == (1200, 500) } == true)
        let data = Self.rows(home + "/p/gyro-mouse-rest-drift.csv")
        let last = try #require(data.last)
        #expect(data.count > 1000 && abs(last[0] - 600) < 1, "10 minutes: \(data.count) rows, last at \(last[0]) s")
        #expect(last[2] > 20 * max(last[1], 1), "without bias estimation \(last[2]) px, with it \(last[1]) px")
    }

    @Test("bench stream --senders-rounds: without --senders, or out of 1 to 20, it says so before any work")
    func sendersRounds() throws {
        for (arguments, says) in [
            (["--senders-rounds", "3"], "--senders-rounds goes with --senders"),
            (["--senders", "8", "--senders-rounds", "0"], "--senders-rounds takes 1 to 20 rounds"),
            (["--senders", "8", "--senders-rounds", "21"], "--senders-rounds takes 1 to 20 rounds")
        ] {
            let r = try runMouse3D(["bench", "stream"] + arguments)
            #expect(r.status != 0 && r.errors.contains(says), "\(arguments): \(r.errors)")
            #expect(r.output.isEmpty, "\(arguments): it measured before refusing: \(r.output)")
        }
    }

    @Test("Without gnuplot, --plot says what to install, before any work")
    func noGnuplot() throws {
        let home = Mouse3DProcess.makeConfigHome()
        let r = try runMouse3D(
            ["bench", "gyro-mouse", "--plot", home + "/p"], configHome: home,
            environment: ["HOME": home, "PATH": "/nonexistent"])
        #expect(r.status != 0 && r.errors.contains("apt install gnuplot-nox"), "\(r.errors)")
        #expect(
            !r.output.contains("drift at rest"),
            "the benchmark ran before the missing gnuplot was reported: \(r.output)")
    }
}
