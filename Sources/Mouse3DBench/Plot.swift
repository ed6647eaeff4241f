import Mouse3DCore
import Mouse3DLinux

/// Line plots as PNG files, drawn by gnuplot (Debian's `gnuplot-nox`): the data goes to NAME.csv
/// beside the picture, so the figure can be redrawn or checked.
public enum Plot {
    /// One curve: its title and its y values (one per x).
    public struct Series: Sendable {
        public var title: String
        public var values: [Double]
        public init(_ title: String, _ values: [Double]) {
            self.title = title
            self.values = values
        }
    }

    /// Why a plot could not be drawn.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `directory/name.csv` and draws `directory/name.png` (1200×500): `series` against `x`.
    /// Returns the picture's path. At most `maximumPoints` rows are written (every k-th).
    @discardableResult
    public static func draw(
        directory: String, name: String, title: String, x: [Double], xLabel: String, yLabel: String, series: [Series],
        maximumPoints: Int = 6000
    ) throws(Failure) -> String {
        let base = (directory.hasSuffix("/") ? directory : directory + "/") + name
        let every = max(1, (x.count + maximumPoints - 1) / maximumPoints)
        do {
            let out = try BufferedOutput(creatingFileAt: base + ".csv")
            try out.writeLine((["x"] + series.map(\.title)).joined(separator: ","))
            for i in Swift.stride(from: 0, to: x.count, by: every) {
                try out.writeLine(([x[i]] + series.map { $0.values[i] }).map { fixed($0, 5) }.joined(separator: ","))
            }
            try out.flush()
            let script = try BufferedOutput(creatingFileAt: base + ".gp")
            let plots = series.indices.map {
                "'\(base).csv' using 1:\($0 + 2) with lines lw 1.5 title '\(quoted(series[$0].title))'"
            }
            for line in [
                "set terminal pngcairo size 1200,500 font ',10' noenhanced", "set output '\(base).png'",
                "set datafile separator ','",
                "set key autotitle columnhead", "set title '\(quoted(title))'", "set xlabel '\(quoted(xLabel))'",
                "set ylabel '\(quoted(yLabel))'", "set grid", "plot " + plots.joined(separator: ", ")
            ] { try script.writeLine(line) }
            try script.flush()
        } catch {
            throw Failure(description: "cannot write \(base).csv: \(error)")
        }
        defer { try? FileSystem.remove(base + ".gp") }
        let status: Int32
        let errors: String
        do {
            let child = try ChildProcess(executable: "/usr/bin/env", arguments: ["gnuplot", base + ".gp"])
            errors = try child.readAllErrors()
            status = try child.wait()
        } catch {
            throw Failure(description: "cannot run gnuplot: \(error)")
        }
        guard status == 0 else {
            let why =
                errors.contains("No such file") || status == 127
                ? "gnuplot is not installed (apt install gnuplot-nox)"
                : "gnuplot failed: \(errors.split(separator: "\n").last ?? "exit \(status)")"
            throw Failure(description: why)
        }
        return base + ".png"
    }

    /// Throws unless gnuplot runs here (checked before a benchmark spends its time).
    public static func checkAvailable() throws(Failure) {
        let status: Int32
        do {
            let child = try ChildProcess(
                executable: "/usr/bin/env", arguments: ["gnuplot", "--version"], standardOutputPath: "/dev/null")
            _ = try child.readAllErrors()
            status = try child.wait()
        } catch {
            throw Failure(description: "cannot run gnuplot: \(error)")
        }
        guard status == 0 else { throw Failure(description: "gnuplot is not installed (apt install gnuplot-nox)") }
    }

    static func quoted(_ text: String) -> String { text.replacingAll("'", with: "''") }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
