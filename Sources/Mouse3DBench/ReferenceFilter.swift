import Mouse3DCore
import Mouse3DLinux

/// VQF's C++ implementation (the PyPI package `vqf`, whose `updateBatch` runs the whole loop in C++),
/// run on the same samples as mouse3d's benchmarks, in the same run, through a Python interpreter.
public enum ReferenceFilter {
    /// What the reference gave, or why it could not run.
    public enum Outcome<Value: Sendable>: Sendable {
        case measured(Value, version: String)
        case unavailable(String)
    }

    /// Loads the log given as argv[1] into `gyr`, `acc` and `ts`, or says why it cannot.
    static let prologue = """
        sys, time = __import__("sys"), __import__("time")
        try:
            np, vqf = __import__("numpy"), __import__("vqf")
        except ImportError as e:
            print("unavailable: " + str(e) + " (pip install vqf)"); sys.exit(0)
        d = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
        ts = float(np.median(np.diff(d[:, 0])))
        gyr = np.ascontiguousarray(d[:, 1:4]); acc = np.ascontiguousarray(d[:, 4:7])
        version = __import__("importlib.metadata").metadata.version("vqf")

        """

    /// Times a fresh VQF over the log until argv[2] seconds have passed (at least three runs).
    static let timing =
        prologue + """
            best, runs, start = float("inf"), 0, time.perf_counter()
            while runs < 3 or time.perf_counter() - start < float(sys.argv[2]):
                f = vqf.VQF(ts)
                t0 = time.perf_counter(); f.updateBatch(gyr, acc); best = min(best, time.perf_counter() - t0); runs += 1
            print("measured", version, len(gyr) / best)
            """

    /// Runs VQF once and writes its 6D quaternion and bias estimate for every sample to argv[2].
    static let trace =
        prologue + """
            out = vqf.VQF(ts).updateBatch(gyr, acc)
            np.savetxt(sys.argv[2], np.hstack([out["quat6D"], out["bias"]]), delimiter=",", fmt="%.17g")
            print("measured", version)
            """

    /// VQF's samples per second over `samples`, measured for at least `seconds`.
    public static func samplesPerSecond(python: String, samples: [MotionSample], seconds: Double) -> Outcome<Double> {
        run(python: python, script: timing, samples: samples, argument: String(seconds)) { words, _ in
            words.count == 1 ? Double(words[0]) : nil
        }
    }

    /// VQF's attitude and gyroscope bias estimate (rad/s) after every one of `samples`.
    public static func trace(python: String, samples: [MotionSample]) -> Outcome<[(Quaternion, SIMD3<Double>)]> {
        let path = temporaryPath("trace")
        defer { try? FileSystem.remove(path) }
        return run(python: python, script: trace, samples: samples, argument: path) { _, _ in
            guard let bytes = try? FileContents.read(path: path) else { return nil }
            var rows: [(Quaternion, SIMD3<Double>)] = []
            rows.reserveCapacity(samples.count)
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let v = line.split(separator: UInt8(ascii: ",")).compactMap {
                    Double(String(decoding: $0, as: UTF8.self))
                }
                guard v.count == 7 else { return nil }
                rows.append((Quaternion(w: v[0], x: v[1], y: v[2], z: v[3]), SIMD3(v[4], v[5], v[6])))
            }
            return rows.count == samples.count ? rows : nil
        }
    }

    static func temporaryPath(_ what: String) -> String {
        FileSystem.temporaryDirectory + "/mouse3d-bench-\(what)-\(FileSystem.processID)"
    }

    /// Writes `samples` as a log, runs `script` with the log and `argument`, and reads the line it
    /// prints: "measured VERSION WORDS..." (handed to `parse`) or "unavailable: WHY".
    static func run<Value>(
        python: String, script: String, samples: [MotionSample], argument: String,
        parse: ([Substring], String) -> Value?
    ) -> Outcome<Value> {
        let log = temporaryPath("log") + ".csv"
        let result = temporaryPath("out")
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
                executable: "/usr/bin/env", arguments: [python, "-c", script, log, argument],
                standardOutputPath: result)
            let errors = try child.readAllErrors()
            let status = try child.wait()
            let words = String(decoding: try FileContents.read(path: result), as: UTF8.self)
                .split(whereSeparator: { $0 == " " || $0 == "\n" })
            if status == 0, words.count >= 2, words[0] == "measured" {
                let version = String(words[1])
                if let value = parse(Array(words.dropFirst(2)), version) { return .measured(value, version: version) }
                return .unavailable(
                    "\(python) printed what could not be read: \(words.prefix(8).joined(separator: " "))")
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
