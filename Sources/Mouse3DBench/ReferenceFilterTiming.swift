import Mouse3DCore
import Mouse3DLinux

/// Times VQF's C++ implementation (the PyPI package `vqf`, whose `updateBatch` runs the whole loop in
/// C++) on the same samples as `bench fusion`, in the same run, so that the two figures share the
/// machine's state.
public enum ReferenceFilterTiming {
    /// What the reference measured, or why it was not measured.
    public enum Outcome: Sendable {
        case measured(samplesPerSecond: Double, version: String)
        case unavailable(String)
    }

    /// The timing script: loads the log, runs a fresh VQF over it until `seconds` have passed (at
    /// least three runs) and prints the package version and the best samples per second.
    static let script = """
        sys, time = __import__("sys"), __import__("time")
        try:
            np, vqf = __import__("numpy"), __import__("vqf")
        except ImportError as e:
            print("unavailable: " + str(e) + " (pip install vqf)"); sys.exit(0)
        path, seconds = sys.argv[1], float(sys.argv[2])
        d = np.loadtxt(path, delimiter=",", skiprows=1)
        ts = float(np.median(np.diff(d[:, 0])))
        gyr = np.ascontiguousarray(d[:, 1:4]); acc = np.ascontiguousarray(d[:, 4:7])
        best, runs, start = float("inf"), 0, time.perf_counter()
        while runs < 3 or time.perf_counter() - start < seconds:
            f = vqf.VQF(ts)
            t0 = time.perf_counter(); f.updateBatch(gyr, acc); best = min(best, time.perf_counter() - t0); runs += 1
        print("measured", len(gyr) / best, __import__("importlib.metadata").metadata.version("vqf"))
        """

    /// Runs `python` (a path, or a name looked up in PATH) with the timing script over `samples`.
    public static func vqf(python: String, samples: [MotionSample], seconds: Double) -> Outcome {
        let log = FileSystem.temporaryDirectory + "/mouse3d-bench-fusion-\(FileSystem.processID).csv"
        let result = FileSystem.temporaryDirectory + "/mouse3d-bench-fusion-\(FileSystem.processID).out"
        defer {
            try? FileSystem.remove(log)
            try? FileSystem.remove(result)
        }
        do {
            let out = try BufferedOutput(creatingFileAt: log)
            try out.writeLine(MotionLogWriter.header)
            for sample in samples { try out.writeLine(MotionLogWriter.row(sample)) }
            try out.flush()
            let child = try ChildProcess(
                executable: "/usr/bin/env", arguments: [python, "-c", script, log, String(seconds)],
                standardOutputPath: result)
            let errors = try child.readAllErrors()
            let status = try child.wait()
            let words = String(decoding: try FileContents.read(path: result), as: UTF8.self)
                .split(whereSeparator: { $0 == " " || $0 == "\n" })
            if status == 0, words.count == 3, words[0] == "measured", let rate = Double(words[1]) {
                return .measured(samplesPerSecond: rate, version: String(words[2]))
            }
            if status == 0, words.first == "unavailable:" {
                return .unavailable(words.dropFirst().joined(separator: " "))
            }
            let detail = errors.split(separator: "\n").last.map(String.init) ?? "exit status \(status)"
            return .unavailable("\(python) failed: \(detail)")
        } catch {
            return .unavailable("\(error)")
        }
    }
}
